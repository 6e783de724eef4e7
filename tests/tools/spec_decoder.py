#!/usr/bin/python3
"""An independent reader of gradcodec streams, written from the format documents alone.

Sources: format-spec/FORMAT.md (container, section 3.1 dtype storage, 4.1 seeded generator,
5.1/5.2 for a lowrank fallback payload), codec-randomk.md, codec-qsgd.md, codec-sign.md,
codec-natural.md, codec-lowrank.md and codec-rangeq.md section 4 (the value section). No
gradcodec source was read to write it; it is a conformance check of the pages.

What it decodes: tensor records of codec ids 7 to 11 (randomk, qsgd/terngrad, sign/onebit,
natural, lowrank), to binary32 values stored in the tensor's dtype. What it skips, reporting
the record as skipped: codec ids 1 to 6 at the top level, value sections of format 4 (the
range-float section of codec-rangeq.md section 2, which it does not implement), and nested
lowrank fallback payloads of codecs 3 to 6. A symbol section stored as a zstd frame
(codec-qsgd.md section 3) is decompressed with the `zstd` command-line tool.

Checksums (XXH3-64) are verified only when the Python `xxhash` module is importable; without
it they are read and not verified (`CHECKSUMS_VERIFIED` says which).

Usage: spec_decoder.py STREAM [-o RAW]   prints one line per record; with -o, writes the
decoded bytes of the single decoded tensor (like `gradcodec decode --raw`).
"""

import shutil
import struct
import subprocess
import sys

import numpy as np

try:  # pragma: no cover - depends on the environment
    import xxhash  # type: ignore

    CHECKSUMS_VERIFIED = True
except ImportError:  # pragma: no cover
    xxhash = None
    CHECKSUMS_VERIFIED = False

MAGIC = bytes([0x89, 0x47, 0x52, 0x44, 0x43, 0x0D, 0x0A, 0x1A])
MASK64 = (1 << 64) - 1

DTYPES = {1: "f16", 2: "bf16", 3: "f32", 4: "f64",
          16: "i8", 17: "i16", 18: "i32", 19: "i64",
          24: "u8", 25: "u16", 26: "u32", 27: "u64", 32: "bool"}
DTYPE_SIZE = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8,
              "u8": 1, "u16": 2, "u32": 4, "u64": 8, "bool": 1}
FLOAT_DTYPES = ("f16", "bf16", "f32", "f64")
CODEC_NAMES = {1: "lossless", 2: "cast", 3: "rangeq", 4: "sparse", 5: "fft", 6: "dct",
               7: "randomk", 8: "qsgd", 9: "sign", 10: "natural", 11: "lowrank"}


class Damaged(Exception):
    """The stream breaks a MUST of the format (a damaged stream)."""


class Skipped(Exception):
    """A record this reader does not decode (a codec or value format it leaves out)."""


# ---------------------------------------------------------------------------------------------
# Byte reading


class Reader:
    def __init__(self, data, what):
        self.data = data
        self.pos = 0
        self.what = what

    def remaining(self):
        return len(self.data) - self.pos

    def take(self, n):
        if n < 0 or n > self.remaining():
            raise Damaged(f"{self.what}: a field runs past the end ({n} bytes wanted, "
                          f"{self.remaining()} left)")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return bytes(out)

    def u8(self):
        return self.take(1)[0]

    def u16(self):
        return struct.unpack("<H", self.take(2))[0]

    def i16(self):
        return struct.unpack("<h", self.take(2))[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def string(self):
        n = self.u32()
        return self.take(n)

    def shape(self):
        rank = self.u8()
        if rank > 32:
            raise Damaged(f"{self.what}: rank {rank} above 32")
        return tuple(self.u64() for _ in range(rank))

    def expect_end(self):
        if self.remaining():
            raise Damaged(f"{self.what}: {self.remaining()} bytes after the last field")


def element_count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


# ---------------------------------------------------------------------------------------------
# FORMAT.md 4.1: the seeded generator


def mix(x):
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK64
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def draw(s, i):
    return mix((s + (i + 1) * 0x9E3779B97F4A7C15) & MASK64)


def below(d, m):
    return (d * m) >> 64


# ---------------------------------------------------------------------------------------------
# FORMAT.md 3.1: binary32 values stored in the tensor's dtype


def store(values, dtype):
    """binary32 values (np.float32 array) -> little-endian bytes of the tensor's dtype."""
    v = np.ascontiguousarray(values, dtype=np.float32)
    bits = v.view(np.uint32)
    finite = np.isfinite(v)
    if dtype == "f32":
        return v.astype("<f4").tobytes()
    if dtype == "f64":
        return v.astype("<f8").tobytes()
    if dtype == "f16":
        if np.any(finite & (np.abs(v) >= np.float32(65520))):
            raise Damaged("a decoded value does not fit f16")
        h = v.astype("<f2").view(np.uint16).copy()
        nan = np.isnan(v)
        h[nan] = 0x7E00 | ((bits[nan] >> 16) & 0x8000).astype(np.uint16)
        return h.tobytes()
    if dtype == "bf16":
        if np.any(finite & ((bits & 0x7FFFFFFF) >= 0x7F7F8000)):
            raise Damaged("a decoded value does not fit bf16")
        b = bits.astype(np.uint64)
        rounded = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
        sign = ((bits >> 16) & 0x8000).astype(np.uint16)
        rounded[np.isinf(v)] = (0x7F80 | sign)[np.isinf(v)]
        rounded[np.isnan(v)] = (0x7FC0 | sign)[np.isnan(v)]
        return rounded.astype("<u2").tobytes()
    raise Damaged(f"a float codec on a {dtype} tensor")


# ---------------------------------------------------------------------------------------------
# codec-rangeq.md 4: the value section


def value_section(r, count):
    """Reads a value section of `count` values; returns them as np.float32."""
    fmt = r.u8()
    if fmt == 1:
        if count > r.remaining() // 4:
            raise Damaged("value section: too few bytes for f32 values")
        return np.frombuffer(r.take(4 * count), dtype="<f4").astype(np.float32)
    if fmt == 2:
        if count > r.remaining() // 2:
            raise Damaged("value section: too few bytes for f16 values")
        return np.frombuffer(r.take(2 * count), dtype="<f2").astype(np.float32)
    if fmt == 3:
        if count > r.remaining() // 2:
            raise Damaged("value section: too few bytes for bf16 values")
        h = np.frombuffer(r.take(2 * count), dtype="<u2").astype(np.uint32)
        return (h << 16).astype(np.uint32).view(np.float32)
    if fmt == 4:
        raise Skipped("value section of format 4 (range-float) is not implemented")
    raise Damaged(f"value section: format byte {fmt}")


# ---------------------------------------------------------------------------------------------
# codec-randomk.md


def floyd_positions(n, k, seed):
    chosen = set()
    for i in range(k):
        j = n - k + i
        t = below(draw(seed, i), j + 1)
        if t in chosen:
            t = j
        chosen.add(t)
    return np.array(sorted(chosen), dtype=np.int64)


def decode_randomk(payload, n, shape):
    r = Reader(payload, "randomk payload")
    if r.remaining() < 17:
        raise Damaged("randomk: fewer than 17 bytes")
    seed, k, scale = r.u64(), r.u64(), r.u8()
    if k > n:
        raise Damaged(f"randomk: k = {k} above n = {n}")
    if scale > 1:
        raise Damaged("randomk: scale byte above 1")
    values = value_section(r, k)
    r.expect_end()
    out = np.zeros(n, dtype=np.float32)
    out[floyd_positions(n, k, seed)] = values
    return out


# ---------------------------------------------------------------------------------------------
# codec-qsgd.md


def bits_of(body):
    return np.unpackbits(np.frombuffer(body, dtype=np.uint8), bitorder="little")


def zstd_decompress(frame, limit):
    """One zstd frame with a declared content size (RFC 8878), decoded by the zstd tool."""
    if len(frame) < 6 or struct.unpack_from("<I", frame, 0)[0] != 0xFD2FB528:
        raise Damaged("symbol section: not a zstd frame")
    fhd = frame[4]
    fcs_flag, single, dict_flag = fhd >> 6, (fhd >> 5) & 1, fhd & 3
    pos = 5 + (0 if single else 1) + (0, 1, 2, 4)[dict_flag]
    fcs_size = (1 if single else 0) if fcs_flag == 0 else (2, 4, 8)[fcs_flag - 1]
    if fcs_size == 0:
        raise Damaged("symbol section: zstd frame without a content size")
    if pos + fcs_size > len(frame):
        raise Damaged("symbol section: truncated zstd frame header")
    size = int.from_bytes(frame[pos:pos + fcs_size], "little") + (256 if fcs_size == 2 else 0)
    if size > limit:
        raise Damaged(f"symbol section: zstd content size {size} above {limit}")
    tool = shutil.which("zstd")
    if tool is None:
        raise Skipped("a zstd symbol section and no zstd tool")
    done = subprocess.run([tool, "-d", "-c", "-q"], input=frame, capture_output=True)
    if done.returncode != 0:
        raise Damaged("symbol section: zstd frame fails to decompress")
    if len(done.stdout) != size:
        raise Damaged("symbol section: zstd frame decompresses to another size")
    return done.stdout


def symbol_section(r, n, alphabet):
    mode = r.u8()
    coding = mode & 0x7F
    if coding > 2:
        raise Damaged(f"symbol section: coding {coding}")
    if coding == 2 and alphabet > 3:
        raise Damaged("symbol section: base 3 with an alphabet above 3")
    length = r.u64()
    if length > r.remaining():
        raise Damaged("symbol section: L exceeds the bytes that remain")
    body = r.take(length)
    if mode & 0x80:
        body = zstd_decompress(body, (63 * n + 7) // 8 + 8)
    if coding == 0:
        w = max(1, (alphabet - 1).bit_length())
        if len(body) != (n * w + 7) // 8:
            raise Damaged("symbol section: fixed-width body of the wrong size")
        bits = bits_of(body)
        if bits[n * w:].any():
            raise Damaged("symbol section: a padding bit is set")
        b = bits[:n * w].reshape(n, w).astype(np.uint64)
        symbols = (b << np.arange(w, dtype=np.uint64)).sum(axis=1) if w else np.zeros(n, np.uint64)
    elif coding == 1:
        bits = bits_of(body).tolist()
        total = len(bits)
        symbols = np.empty(n, dtype=np.uint64)
        pos = 0
        for i in range(n):
            zeros = 0
            while True:
                if pos >= total:
                    raise Damaged("symbol section: a gamma code runs past the end")
                if bits[pos]:
                    break
                zeros += 1
                pos += 1
                if zeros > 31:
                    raise Damaged("symbol section: a gamma code with more than 31 zeros")
            pos += 1
            if pos + zeros > total:
                raise Damaged("symbol section: a gamma code runs past the end")
            rest = 0
            for j in range(zeros):
                rest |= bits[pos + j] << j
            pos += zeros
            symbols[i] = (1 << zeros) + rest - 1
        if total - pos >= 8 or any(bits[pos:]):
            raise Damaged("symbol section: bits after the last gamma code")
    else:
        if len(body) != (n + 4) // 5:
            raise Damaged("symbol section: base-3 body of the wrong size")
        symbols = np.empty(n, dtype=np.uint64)
        for b, byte in enumerate(body):
            t = min(5, n - 5 * b)
            if byte >= 3 ** t:
                raise Damaged("symbol section: a base-3 byte out of range")
            for d in range(t):
                symbols[5 * b + d] = byte % 3
                byte //= 3
    if n and int(symbols.max()) >= alphabet:
        raise Damaged("symbol section: a symbol outside the alphabet")
    return symbols


def decode_qsgd(payload, n, shape):
    r = Reader(payload, "qsgd payload")
    r.u64()  # seed, informational
    scale_kind = r.u8()
    if scale_kind > 1:
        raise Damaged("qsgd: scale_kind above 1")
    s = r.u32()
    if s == 0 or s > 1 << 20:
        raise Damaged(f"qsgd: s = {s}")
    bucket = r.u64()
    if bucket == 0:
        raise Damaged("qsgd: B = 0")
    nb = -(-n // bucket)
    if nb > r.remaining() // 4:
        raise Damaged("qsgd: too few bytes for the scales")
    scales = np.frombuffer(r.take(4 * nb), dtype="<f4").astype(np.float32)
    if not np.all(np.isfinite(scales)) or np.any(scales < 0):
        raise Damaged("qsgd: a scale is NaN, infinite or negative")
    symbols = symbol_section(r, n, 2 * s + 1)
    r.expect_end()
    sym = symbols.astype(np.int64)
    level = np.where(sym % 2 == 1, (sym + 1) // 2, -(sym // 2))
    bucket_of = np.arange(n, dtype=np.int64) // bucket
    m = (scales[bucket_of].astype(np.float64) * np.abs(level).astype(np.float64)) / np.float64(s)
    x = m.astype(np.float32)
    return np.where(level < 0, -x, x).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# codec-sign.md


def decode_sign(payload, n, shape):
    r = Reader(payload, "sign payload")
    kind = r.u8()
    if kind > 2:
        raise Damaged(f"sign: kind {kind}")
    bucket = r.u64()
    if bucket == 0:
        raise Damaged("sign: B = 0")
    nb = -(-n // bucket)
    v = kind
    if v and nb > r.remaining() // (4 * v):
        raise Damaged("sign: too few bytes for the stored values")
    stored = np.frombuffer(r.take(4 * v * nb), dtype="<f4").astype(np.float32).reshape(nb, v) \
        if v else None
    if v and not np.all(np.isfinite(stored)):
        raise Damaged("sign: a stored value is NaN or infinite")
    nbytes = (n + 7) // 8
    if nbytes > r.remaining():
        raise Damaged("sign: too few bytes for the sign bits")
    bits = bits_of(r.take(nbytes))
    r.expect_end()
    if bits[n:].any():
        raise Damaged("sign: a padding bit is set")
    neg = bits[:n].astype(bool)
    if kind == 0:  # no per-bucket state: +-1.0 are constants
        return np.where(neg, np.float32(-1.0), np.float32(1.0)).astype(np.float32)
    bucket_of = np.arange(n, dtype=np.int64) // bucket
    if kind == 1:
        a = stored[bucket_of, 0]
        return np.where(neg, -a, a).astype(np.float32)
    return np.where(neg, stored[bucket_of, 1], stored[bucket_of, 0]).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# codec-natural.md


def decode_natural(payload, n, shape):
    r = Reader(payload, "natural payload")
    if r.remaining() < 11:
        raise Damaged("natural: fewer than 11 bytes")
    r.u64()  # seed, informational
    e_min = r.i16()
    w = r.u8()
    if w > 9:
        raise Damaged(f"natural: w = {w}")
    if e_min < -149 or e_min > 127:
        raise Damaged(f"natural: e_min = {e_min}")
    width = w + 1
    nbytes = (n * width + 7) // 8
    if nbytes > r.remaining():
        raise Damaged("natural: too few bytes for the codes")
    bits = bits_of(r.take(nbytes))
    r.expect_end()
    if bits[n * width:].any():
        raise Damaged("natural: a padding bit is set")
    codes = (bits[:n * width].reshape(n, width).astype(np.int64)
             << np.arange(width, dtype=np.int64)).sum(axis=1)
    sign = codes & 1
    c = codes >> 1
    exponent = e_min + c - 1
    if np.any((c != 0) & (exponent > 127)):
        raise Damaged("natural: an exponent above 127")
    mag = np.where(c == 0, 0.0, np.ldexp(1.0, np.where(c == 0, 0, exponent)))
    out = np.where(sign == 1, -mag, mag)
    return out.astype(np.float32)


# ---------------------------------------------------------------------------------------------
# codec-lowrank.md


def decode_lowrank(payload, n, shape, dtype):
    r = Reader(payload, "lowrank payload")
    if not payload:
        raise Damaged("lowrank: empty payload")
    form = r.u8()
    if form > 1:
        raise Damaged(f"lowrank: form {form}")
    if form == 1:
        if r.remaining() < 2:
            raise Damaged("lowrank: fewer than 2 bytes after form 1")
        codec_id = r.u16()
        if codec_id == 11:
            raise Damaged("lowrank: a fallback to lowrank")
        if codec_id not in CODEC_NAMES or codec_id == 0:
            raise Damaged(f"lowrank: unknown codec id {codec_id}")
        return ("bytes", decode_payload(codec_id, dtype, shape, payload[3:], nested=True))
    rank = r.u32()
    if rank == 0 or rank > 256:
        raise Damaged(f"lowrank: R = {rank}")
    if len(shape) < 2 or shape[0] == 0 or n == 0:
        raise Damaged("lowrank: factors for a tensor that is not a matrix")
    rows, cols = shape[0], n // shape[0]
    if not rank * (rows + cols) < rows * cols:
        raise Damaged("lowrank: factors that do not pay")
    r.u64()  # seed, informational
    r.u8()  # iters, informational
    p = value_section(r, rows * rank).reshape(rows, rank)
    q = value_section(r, cols * rank).reshape(cols, rank)
    r.expect_end()
    total = np.zeros((rows, cols), dtype=np.float64)  # +0.0
    for k in range(rank):  # in increasing r, each addition rounded in binary64
        total += np.multiply.outer(p[:, k].astype(np.float64), q[:, k].astype(np.float64))
    return total.reshape(n).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# FORMAT.md 5.1 and 5.2 (only as lowrank fallbacks)


def decode_lossless(payload, dtype, n):
    size = DTYPE_SIZE[dtype]
    r = Reader(payload, "lossless payload")
    mode = r.u8()
    if mode == 0:
        data = r.take(n * size) if n * size <= r.remaining() else r.take(-1)
        r.expect_end()
        return data
    if mode != 1:
        raise Damaged(f"lossless: mode {mode}")
    if r.u8() != size:
        raise Damaged("lossless: plane count")
    modes = list(r.take(size))
    if any(m > 1 for m in modes):
        raise Damaged("lossless: plane mode above 1")
    planes = [None] * size
    for k in range(size):
        if modes[k] == 0:
            planes[k] = r.take(n)
    for k in range(size):
        if modes[k] == 1:
            frame = r.take(r.u64())
            planes[k] = zstd_decompress(frame, n)
            if len(planes[k]) != n:
                raise Damaged("lossless: plane size")
    r.expect_end()
    arr = np.stack([np.frombuffer(p, dtype=np.uint8) for p in planes], axis=1)
    return arr.tobytes()


def decode_cast(payload, dtype, n):
    r = Reader(payload, "cast payload")
    target = r.u8()
    if target not in (1, 2):
        raise Damaged(f"cast: target {target}")
    if n > r.remaining() // 2:
        raise Damaged("cast: too few bytes")
    h = np.frombuffer(r.take(2 * n), dtype="<u2")
    r.expect_end()
    if target == 1:
        v = h.view("<f2").astype(np.float32)
    else:
        v = (h.astype(np.uint32) << 16).view(np.float32)
    return store(v, dtype)


# ---------------------------------------------------------------------------------------------
# Dispatch


def decode_payload(codec_id, dtype, shape, payload, nested=False):
    """Returns the decoded elements as little-endian bytes of `dtype`."""
    n = element_count(shape)
    if codec_id == 1 and nested:
        return decode_lossless(payload, dtype, n)
    if codec_id not in (7, 8, 9, 10, 11):
        if codec_id in CODEC_NAMES and codec_id != 0:
            if codec_id == 2 and nested:
                if dtype not in FLOAT_DTYPES:
                    raise Damaged("cast on a non-float tensor")
                return decode_cast(payload, dtype, n)
            raise Skipped(f"codec id {codec_id} ({CODEC_NAMES[codec_id]}) is not decoded here")
        raise Damaged(f"unknown codec id {codec_id}")
    if dtype not in FLOAT_DTYPES:
        raise Damaged(f"codec id {codec_id} on a {dtype} tensor")
    if codec_id == 7:
        values = decode_randomk(payload, n, shape)
    elif codec_id == 8:
        values = decode_qsgd(payload, n, shape)
    elif codec_id == 9:
        values = decode_sign(payload, n, shape)
    elif codec_id == 10:
        values = decode_natural(payload, n, shape)
    else:
        values = decode_lowrank(payload, n, shape, dtype)
        if isinstance(values, tuple):
            return values[1]
    return store(values, dtype)


def check(kind_bytes, checksum, what):
    if xxhash is not None and xxhash.xxh3_64_intdigest(kind_bytes) != checksum:
        raise Damaged(f"{what}: checksum mismatch")


def read_attributes(r):
    count = r.u16()
    if count > 4096:
        raise Damaged("more than 4096 attributes")
    for _ in range(count):
        r.string()
        kind, _dtype, cset, strpad = r.u8(), r.u8(), r.u8(), r.u8()
        if kind > 2 or cset > 1 or strpad > 2:
            raise Damaged("attribute: bad kind, cset or strpad")
        r.u32()
        r.shape()
        r.take(r.u64())


def read_stream(data):
    """Parses a whole stream; returns a list of dicts, one per tensor record:
    path, dtype, shape, codec_id, spec, payload, decoded (bytes or None), skipped (reason)."""
    data = bytes(data)
    if data[:8] != MAGIC:
        raise Damaged("not a gradcodec stream")
    r = Reader(data, "header")
    r.take(8)
    major = r.u16()
    if major != 1:
        raise Damaged(f"stream major version {major}; this reader knows 1")
    r.u16()  # minor: any
    if r.u32() != 0:
        raise Damaged("unknown required flags")
    r.u32()  # optional flags: ignored
    ext = r.u32()
    if ext > 65536:
        raise Damaged("header extension above 65536 bytes")
    r.take(ext)
    check(data[:r.pos], r.u64(), "header")
    tensors = []
    number = 0
    while True:
        start = r.pos
        kind = r.u8()
        flags = r.u8()
        if flags & 0xFE:
            raise Damaged("reserved record flag bits set")
        if r.u16() != 0:
            raise Damaged("reserved record field not 0")
        length = r.u64()
        body = r.take(length)
        check(data[start:r.pos], r.u64(), f"record {number + 1}")
        if kind == 255:
            b = Reader(body, "end record")
            count = b.u64()
            b.expect_end()
            if count != number:
                raise Damaged(f"end record counts {count} records, {number} read")
            r.expect_end()
            return tensors
        number += 1
        b = Reader(body, f"record {number}")
        if kind == 1:
            b.string()
            read_attributes(b)
            b.expect_end()
        elif kind == 2:
            path = b.string()
            code = b.u8()
            if code not in DTYPES:
                raise Damaged(f"dtype code {code}")
            dtype = DTYPES[code]
            shape = b.shape()
            read_attributes(b)
            codec_id = b.u16()
            spec = b.string()
            if len(spec) > 4096:
                raise Damaged("codec spec longer than 4096 bytes")
            payload = b.take(b.u64())
            b.expect_end()
            rec = {"path": path, "dtype": dtype, "shape": shape, "codec_id": codec_id,
                   "spec": spec.decode("utf-8", "replace"), "payload": payload,
                   "decoded": None, "skipped": None}
            try:
                rec["decoded"] = decode_payload(codec_id, dtype, shape, payload)
                if len(rec["decoded"]) != element_count(shape) * DTYPE_SIZE[dtype]:
                    raise Damaged("decoded element count differs from the shape")
            except Skipped as e:
                rec["skipped"] = str(e)
            except Damaged as e:
                raise Damaged(f"record {number} ({path.decode('utf-8', 'replace')}): {e}")
            tensors.append(rec)
        elif kind in (3, 4):
            pass  # link and typed dataset records: carried, not interpreted here
        elif flags & 1:
            pass  # unknown skippable kind
        else:
            raise Damaged(f"record {number}: unknown kind {kind}")


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    out = None
    if "-o" in argv:
        out = argv[argv.index("-o") + 1]
    with open(argv[0], "rb") as f:
        data = f.read()
    try:
        tensors = read_stream(data)
    except Damaged as e:
        print(f"damaged stream: {e}", file=sys.stderr)
        return 3
    if not CHECKSUMS_VERIFIED:
        print("note: no xxhash module, checksums not verified", file=sys.stderr)
    for t in tensors:
        status = "skipped: " + t["skipped"] if t["skipped"] else "decoded"
        print(f"{t['path'].decode('utf-8', 'replace')}  {t['dtype']}  {t['shape']}  "
              f"codec {t['codec_id']}  {t['spec']}  {status}")
    if out is not None:
        decoded = [t for t in tensors if t["decoded"] is not None]
        if len(decoded) != 1:
            print("-o needs exactly one decoded tensor", file=sys.stderr)
            return 2
        with open(out, "wb") as f:
            f.write(decoded[0]["decoded"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
