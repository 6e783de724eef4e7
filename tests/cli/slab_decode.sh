# Decompression bombs: a stream of a few KB holding one 8 GiB top-k tensor (2^31 f32 values,
# four kept) decodes to HDF5 and to --raw under a hard 256 MiB address-space limit. Sparse
# tensors decode a slab at a time straight into the output, so decode holds one 4 MiB slab and
# the kept values, never the tensor; only the output's size (--max-total-bytes) is the user's
# to cap. In HDF5 the slabs without kept values are never written: the dataset's fill value, 0,
# reads back in their place, so the file holds four 4 MiB chunks.
source "$(dirname "$0")/testlib.bash"

# ASan reserves terabytes of address space for its shadow memory: no such build runs under
# `ulimit -v` at all (tests/cli/CMakeLists.txt sets GRADCODEC_SANITIZED there).
if [ -n "${GRADCODEC_SANITIZED:-}" ]; then
    echo "skipped: a sanitizer build cannot run under ulimit -v (its shadow memory alone is larger)"
    exit 77
fi

N=2147483648          # 2^31 elements: 8 GiB of f32
BYTES=$((4 * N))
P1=123456789
P2=$((N / 2 + 7))
# The tensor: 1.5 at 0, -2.25 at P1, 3 at P2, 0.5 at the last element, zeros elsewhere, encoded
# by topk a piece at a time (the tool never holds it). Their f32 little-endian bytes, which
# the raw check below looks for: 1.5 = 0x3fc00000, -2.25 = 0xc0100000, 3 = 0x40400000,
# 0.5 = 0x3f000000.
MAKE_HOSTILE="$(dirname "$MAKE_FIXTURE")/make_hostile_streams"
"$MAKE_HOSTILE" --sparse-bomb big.gcs $N 0:1.5 $P1:-2.25 $P2:3 $((N - 1)):0.5 ||
    fail "make_hostile_streams --sparse-bomb failed"
size=$(stat -c %s big.gcs)
if [ "$size" -lt 4096 ]; then pass "8 GiB of f32 make a $size-byte stream"; else fail "the stream is $size bytes"; fi

# Under `ulimit -v` every reservation counts, resident or not: with -T 1 decode starts no
# worker threads, each of which would reserve a stack and, on its first allocation, a 64 MiB
# glibc malloc arena. MALLOC_ARENA_MAX=1 keeps HDF5 or the C library from making one either.
limited() {
    MALLOC_ARENA_MAX=1 bash -c 'ulimit -v 262144 && exec /usr/bin/time -f %M -o "$0" "$@"' "$@"
}
# The caps that would refuse the tensor anywhere else are the ones this test is about: an
# explicit --max-elements keeps the default (half of this machine's memory) out of it.
CAPS="--max-elements $N -T 1"

# --raw to a pipe: every byte arrives, zeros except the four values, checked as it streams
# (nothing is written to disk). The check lists each non-zero byte as `cmp -l` would, its
# 1-based offset and its value in octal, then the total length; python3 compares 8 MiB blocks
# with memcmp, cmp -l (the fallback) runs a few times slower.
nonzero_bytes() {
    if command -v python3 >/dev/null; then
        python3 -c '
import re, sys
size = 1 << 23
buf, zeros, total = bytearray(size), bytes(size), 0
while n := sys.stdin.buffer.readinto(buf):
    if buf[:n] != zeros[:n]:
        for m in re.finditer(rb"[^\x00]", buf[:n]):
            print(total + m.start() + 1, format(m.group()[0], "o"))
    total += n
print("total", total)'
    else
        cmp -l - <(head -c $BYTES /dev/zero) 2>cmp.err | awk '{print $1, $2}'
        [ -s cmp.err ] && cat cmp.err || echo "total $BYTES"
    fi
}
limited raw.rss "$GC" decode big.gcs --raw -o - $CAPS 2>raw.err | nonzero_bytes >raw.diff
status=("${PIPESTATUS[@]}")
if [ "${status[0]}" -eq 0 ]; then pass "decode --raw ran under ulimit -v 262144"; else fail "decode --raw: exit ${status[0]}: $(cat raw.err)"; fi
printf '%s\n' "3 300" "4 77" "$((4 * P1 + 3)) 20" "$((4 * P1 + 4)) 300" "$((4 * P2 + 3)) 100" \
    "$((4 * P2 + 4)) 100" "$BYTES 77" "total $BYTES" >raw.want
if cmp -s raw.diff raw.want; then
    pass "its $BYTES bytes are zero but for the four kept values"
else
    fail "raw output: $(head -20 raw.diff)"
fi
rss=$(tail -1 raw.rss)
if [ "$rss" -le 262144 ]; then pass "--raw peak RSS ${rss} KiB"; else fail "--raw peak RSS ${rss} KiB"; fi

# HDF5: the same under the same limit, in a file of four chunks that h5dump reads back.
expect_exit 0 "decode to HDF5 ran under ulimit -v 262144" -- limited h5.rss "$GC" decode big.gcs -o big.h5 $CAPS
rss=$(tail -1 h5.rss)
if [ "$rss" -le 262144 ]; then pass "HDF5 peak RSS ${rss} KiB"; else fail "HDF5 peak RSS ${rss} KiB"; fi
file_size=$(stat -c %s big.h5)
if [ "$file_size" -lt $((17 << 20)) ]; then pass "the HDF5 file is $file_size bytes"; else fail "the HDF5 file is $file_size bytes"; fi
dataset=$(h5ls -r big.h5 | awk '/Dataset/ {print $1}')
header=$(h5dump -p -H -d "$dataset" big.h5)
if grep -q "SIMPLE { ( $N ) / ( $N ) }" <<<"$header"; then pass "$dataset has shape ($N)"; else fail "shape: $header"; fi
if grep -q "H5T_IEEE_F32LE" <<<"$header"; then pass "of f32"; else fail "type: $header"; fi
if grep -q "CHUNKED ( 1048576 )" <<<"$header" && grep -qE "SIZE 16777216( |$)" <<<"$header"; then
    pass "stored as 4 chunks of 1048576 elements"
else
    fail "layout: $header"
fi
value_at() { # the one value h5dump prints for element $1
    h5dump -d "$dataset" -s "$1" -c 1 -w 0 big.h5 | sed -n 's/^ *([0-9]*): *\([^ ]*\) *$/\1/p'
}
for pair in 0:1.5 $P1:-2.25 $P2:3 $((N - 1)):0.5 1:0 $((P1 + 1)):0 $((N / 4)):0 $((N - 2)):0; do
    got=$(value_at "${pair%%:*}")
    if [ "$got" = "${pair#*:}" ]; then pass "element ${pair%%:*} reads back ${pair#*:}"; else fail "element ${pair%%:*} reads '$got', expected ${pair#*:}"; fi
done

# Cut along other dimensions (a last slab of fewer rows, 2-D and 3-D chunks, runs along an
# inner dimension), slabs give the bytes of the whole decode. 24 MiB decode whole by default;
# under --max-tensor-bytes 8M the same stream decodes in slabs (its kept values take 4 MB).
"$MAKE_BIG_DUMP" dense.h5 24
h5dump -d /big.weight -b LE -o dense.f32 dense.h5 >/dev/null || fail "h5dump could not write the raw tensor"
for shape in 2097152x3 3x2097152 3x1024x2048; do
    "$GC" encode dense.f32 --raw f32 --shape $shape --codec topk:density=0.05,values=f32 -o dense.gcs --force ||
        fail "$shape: encode failed"
    "$GC" decode dense.gcs --raw -o whole.raw --force && "$GC" decode dense.gcs --raw -o slabs.raw --force --max-tensor-bytes 8M ||
        fail "$shape: decode --raw failed"
    if cmp -s whole.raw slabs.raw; then pass "$shape: --raw slabs give the whole decode's bytes"; else fail "$shape: --raw slabs differ"; fi
    "$GC" decode dense.gcs -o whole.h5 --force && "$GC" decode dense.gcs -o slabs.h5 --force --max-tensor-bytes 8M ||
        fail "$shape: decode failed"
    if h5diff whole.h5 slabs.h5 && h5dump -p -H slabs.h5 | grep -q CHUNKED; then
        pass "$shape: HDF5 slabs, in chunks, hold the whole decode's values"
    else
        fail "$shape: HDF5 slabs differ"
    fi
done

# The caps that remain: the kept values held (--max-tensor-bytes) and the output's size.
expect_exit 3 "the kept values over --max-tensor-bytes are refused" -- "$GC" decode big.gcs --raw -o out.raw $CAPS --max-tensor-bytes 16
expect_stderr "decoding it in slabs needs about"
expect_stderr "raise it with --max-tensor-bytes"
expect_absent out.raw
expect_exit 3 "an output over --max-total-bytes is refused" -- "$GC" decode big.gcs -o out.h5 $CAPS --max-total-bytes 4G
expect_stderr "raise it with --max-total-bytes"
expect_absent out.h5
finish
