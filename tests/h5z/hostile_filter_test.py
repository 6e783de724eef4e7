"""Filtered files whose gradcodec parameters (cd_values) lie about the chunk, read by h5py,
h5dump and the gradcodec CLI: every read must fail, print no values, and allocate nothing
beyond the chunk.

The hostile files are written the way an attacker would: a valid filtered dataset, a chunk
planted with write_direct_chunk, then the element count in the filter pipeline message patched
in the file's bytes (set_local always stores the true count, so only an edited file lies).

  over-read   the parameters and the frame both say 16 f32 values for a chunk of 1024: a filter
              that trusts them returns 64 bytes and HDF5 copies 4096 out of that buffer.
  count bomb  the parameters and a 92-byte sparse frame say 2^30 (and 2^30 - 1) values for a
              chunk of 1024: a filter that trusts them allocates 4 GiB per read. Readers run
              under a 1 GiB address-space limit, and h5py and h5dump must report the filter's
              refusal, not a failed allocation.
  dtype       the parameters and the frame say 512 f64 values for a chunk of 1024 f32: the
              same byte count, read as the wrong type.
  frame bomb  true parameters, a frame claiming 2^30 values.

Run with HDF5_PLUGIN_PATH naming the directory of libH5Zgradcodec.so and GRADCODEC_CLI the
gradcodec executable (ctest sets both; without GRADCODEC_CLI the CLI checks are skipped).
Each check prints what it verified; the first failure raises.
"""
import ctypes
import os
import re
import resource
import shutil
import struct
import subprocess
import sys
import tempfile

import h5py
import numpy as np

FILTER_ID = 399
# Codec ids are format constants (format-spec/FORMAT.md, "Codec ids"); the files are packed by
# hand from format-spec/FILTER.md, so this test needs neither the Python package nor its
# compiled module.
CODEC_IDS = {"lossless": 1, "topk": 4}


def filter_kwargs(spec):
    """h5py's keyword arguments for the gradcodec filter with `spec`: layout version 1, the
    codec id, dtype and chunk count left for set_local (0), no flags, then the spec's bytes."""
    data = spec.encode()
    padded = data + b"\0" * (-len(data) % 4)
    words = [1, CODEC_IDS[spec.split(":", 1)[0]], 0, 0, 0, 0, len(data)]
    words += [int.from_bytes(padded[i : i + 4], "little") for i in range(0, len(padded), 4)]
    return {"compression": FILTER_ID, "compression_opts": tuple(words)}


WORK = tempfile.mkdtemp()
CLI = os.environ.get("GRADCODEC_CLI")
CHUNK = 1024
BOMB = 1 << 30
ADDRESS_LIMIT = 1 << 30  # bytes of address space for each reader of a hostile file
FILTER_MESSAGE = "gradcodec filter:"
CHUNK_MISMATCH = "the dataset's chunks hold 1024 f32 values"

_xxhash = ctypes.CDLL("libxxhash.so.0")
_xxhash.XXH3_64bits.restype = ctypes.c_uint64
_xxhash.XXH3_64bits.argtypes = (ctypes.c_char_p, ctypes.c_size_t)


def path(name):
    return os.path.join(WORK, name)


def ok(what):
    print("ok:", what, flush=True)


def seal(body):
    """A frame: header and payload, then XXH3-64 of both (FRAME.md section 1)."""
    return body + struct.pack("<Q", _xxhash.XXH3_64bits(body, len(body)))


def frame_header(dtype_code, codec_id, count):
    return b"\x89GCF" + bytes([1, 0, 0, dtype_code]) + struct.pack("<HBBQ", codec_id, 1, 0, count)


def sparse_frame(n):
    """A topk frame of n f32 values carrying one, 1.0 at position 0 (codec-sparse.md): 92
    bytes whatever n is."""
    positions = bytes([2]) + struct.pack("<QBQ", 1, 0, 1) + b"\x01"  # Rice, r = 0, one gap of 0
    values = bytes([1]) + struct.pack("<f", 1.0)  # format 1: f32
    payload = bytes([1, 0, 0, 0]) + struct.pack("<dfQ", 1.0 / n, 0.0, 1)
    payload += struct.pack("<Q", len(positions)) + positions + struct.pack("<Q", len(values)) + values
    return seal(frame_header(3, 4, n) + payload)


def lossless_frame(values):
    """The frame the filter writes for `values` with lossless, taken from a chunk it wrote."""
    with h5py.File(path("reference.h5"), "w") as f:
        f.create_dataset("x", data=values, chunks=values.shape, **filter_kwargs("lossless"))
    with h5py.File(path("reference.h5"), "r") as f:
        _, frame = f["x"].id.read_direct_chunk((0,))
    return frame


def filtered_file(name, spec, frame, dtype=np.float32):
    """A file with /x, CHUNK values of `dtype` in one chunk filtered by `spec`, whose stored
    chunk is `frame`. Returns the cd_values set_local stored."""
    with h5py.File(path(name), "w") as f:
        d = f.create_dataset("x", shape=(CHUNK,), dtype=dtype, chunks=(CHUNK,), **filter_kwargs(spec))
        d.id.write_direct_chunk((0,), frame)
        cd = d.id.get_create_plist().get_filter(0)[2]
    assert cd[3] == CHUNK and cd[4] == 0, cd
    return cd


def patch_params(name, cd, **fields):
    """Rewrites fields of the cd_values in the file's filter pipeline message (h5py's default
    object headers carry no checksum)."""
    data = open(path(name), "rb").read()
    old = struct.pack("<%dI" % len(cd), *cd)
    assert data.count(old) == 1, "the parameters occur %d times in %s" % (data.count(old), name)
    new = list(cd)
    for index, value in fields.items():
        new[int(index[1:])] = value
    open(path(name), "wb").write(data.replace(old, struct.pack("<%dI" % len(new), *new)))
    with h5py.File(path(name), "r") as f:
        assert f["x"].id.get_create_plist().get_filter(0)[2] == tuple(new)


def limit_address_space():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))


def run(args, limited=True):
    return subprocess.run(
        args, capture_output=True, text=True, errors="replace", timeout=240,
        preexec_fn=limit_address_space if limited else None,
    )


H5PY_READ = """
import sys, h5py
h5py._errors.unsilence_errors()  # HDF5's error stack, with the filter's message, on stderr
with h5py.File(sys.argv[1], "r") as f:
    x = f["x"][...]
print("read", x.size, "values:", x[:8].tolist(), x[-8:].tolist())
"""

DATA_LINE = re.compile(r"^\s*\(\d+\):", re.M)


def expect_refused(name, message, what):
    """Every reader fails on /x of `name`, prints no values, and shows the filter's `message`."""
    file = path(name)
    r = run([sys.executable, "-c", H5PY_READ, file])
    assert r.returncode != 0, "h5py read %s: %s" % (name, r.stdout)
    assert FILTER_MESSAGE in r.stderr and message in r.stderr, "h5py, %s:\n%s" % (name, r.stderr[-3000:])
    ok("%s: h5py's read fails with the filter's refusal (%s)" % (what, message))

    r = run(["h5dump", "--enable-error-stack", "-d", "/x", file])
    assert r.returncode != 0, "h5dump %s exited 0:\n%s" % (name, r.stdout[-2000:])
    assert not DATA_LINE.search(r.stdout), "h5dump printed values:\n%s" % r.stdout[-2000:]
    assert message in r.stdout + r.stderr, "h5dump, %s:\n%s%s" % (name, r.stdout[-2000:], r.stderr[-2000:])
    ok("%s: h5dump exits %d and prints no values" % (what, r.returncode))

    if not CLI:
        print("skip: GRADCODEC_CLI not set, no CLI checks")
        return
    # The CLI reports a failed read without HDF5's stack, so the message is not checked here.
    for command, out in (("encode", name + ".gcs"), ("repack", name + ".repacked.h5")):
        out = path(out)
        r = run([CLI, command, file, "-o", out, "--codec", "lossless", "-f", "-q"])
        assert r.returncode == 3, "gradcodec %s %s exited %d:\n%s" % (command, name, r.returncode, r.stderr)
        assert "/x: cannot read values" in r.stderr, "gradcodec %s, %s:\n%s" % (command, name, r.stderr)
        assert not os.path.exists(out), out
    ok("%s: gradcodec encode and repack exit 3 on the failed read and write nothing" % what)


def test_crafted_frames_are_valid():
    # The hostile frames differ from valid ones only in what the tests change: this sparse frame
    # at the chunk's true count reads back as its one carried value.
    filtered_file("control.h5", "topk:count=1,values=f32", sparse_frame(CHUNK))
    with h5py.File(path("control.h5"), "r") as f:
        x = f["x"][...]
    assert x[0] == 1.0 and np.count_nonzero(x) == 1, x[:8]
    ok("the crafted 92-byte sparse frame of 1024 values reads back (1.0 at 0, zeros elsewhere)")


def test_overread():
    small = np.arange(16, dtype=np.float32)
    cd = filtered_file("overread.h5", "lossless", lossless_frame(small))
    patch_params("overread.h5", cd, i3=16)
    refusal = "the parameters claim 16 f32 values per chunk, " + CHUNK_MISMATCH
    expect_refused("overread.h5", refusal, "over-read")
    valgrind = shutil.which("valgrind")
    if not valgrind:
        print("skip: no valgrind")
        return
    dump = ["h5dump", "-d", "/x", path("overread.h5")]
    r = run([valgrind, "--error-exitcode=99", "--errors-for-leak-kinds=none"] + dump, limited=False)
    assert r.returncode not in (0, 99), "valgrind h5dump: %d\n%s" % (r.returncode, r.stderr[-4000:])
    assert "Invalid read" not in r.stderr, r.stderr[-4000:]
    ok("over-read: h5dump under valgrind fails the read with no invalid read (exit %d)" % r.returncode)


def test_count_bomb():
    # 2^30 f32 values are 4 GiB, one byte more than HDF5 allows a chunk; 2^30 - 1 pass that
    # limit, and only the dataset's own chunk refuses them.
    for count, refusal in ((BOMB, "more than HDF5's 4 GiB chunk limit"), (BOMB - 1, CHUNK_MISMATCH)):
        frame = sparse_frame(count)
        assert len(frame) == 92, len(frame)
        name = "bomb_%d.h5" % count
        cd = filtered_file(name, "topk:count=1,values=f32", frame)
        patch_params(name, cd, i3=count)
        refusal = "the parameters claim %d f32 values per chunk, %s" % (count, refusal)
        expect_refused(name, refusal, "count bomb %d" % count)


def test_dtype_mismatch():
    halves = np.arange(512, dtype=np.float64)
    cd = filtered_file("dtype.h5", "lossless", lossless_frame(halves))
    patch_params("dtype.h5", cd, i2=4, i3=512)
    refusal = "the parameters claim 512 f64 values per chunk, " + CHUNK_MISMATCH
    expect_refused("dtype.h5", refusal, "dtype")


def test_frame_bomb():
    filtered_file("frame_bomb.h5", "topk:count=1,values=f32", sparse_frame(BOMB))
    expect_refused("frame_bomb.h5", "the chunk's frame holds %d f32 values" % BOMB, "frame bomb")


def test_virtual_dataset_source():
    # HDF5 opens a virtual dataset's sources without an identifier, so the filter cannot
    # confirm their chunks: the read fails unless the program has the source open as well.
    x = np.arange(100, dtype=np.float32)
    with h5py.File(path("source.h5"), "w") as f:
        f.create_dataset("data", data=x, chunks=(50,), **filter_kwargs("lossless"))
    layout = h5py.VirtualLayout(shape=x.shape, dtype=x.dtype)
    layout[:] = h5py.VirtualSource(path("source.h5"), "data", shape=x.shape)
    with h5py.File(path("virtual.h5"), "w") as f:
        f.create_virtual_dataset("v", layout, fillvalue=-1)
    with h5py.File(path("virtual.h5"), "r") as f:
        try:
            f["v"][...]
            raise AssertionError("a virtual dataset read a source the filter could not confirm")
        except OSError as e:
            assert "no open dataset carries these filter parameters" in str(e), e
    with h5py.File(path("source.h5"), "r") as g, h5py.File(path("virtual.h5"), "r") as f:
        source = g["data"]
        assert np.array_equal(f["v"][...], x) and source.shape == x.shape
    ok("a virtual dataset reads a filtered source only while the source is open")


if __name__ == "__main__":
    print("hdf5 %s, h5py %s, work dir %s" % (h5py.version.hdf5_version, h5py.version.version, WORK))
    for name, test in list(globals().items()):
        if name.startswith("test_") and callable(test):
            test()
    shutil.rmtree(WORK)
    print("all hostile filter checks passed")
