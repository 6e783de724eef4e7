# Decompression-bomb caps on the command line: a tensor or record over the cap is refused with
# exit 3 before it is decoded, the message names the cap and the flag that raises it, nothing is
# written; raising the cap lets the same stream through. (The library's tests cover streams that
# declare 2^40 elements in 100 bytes; here the caps are lowered to meet a real stream.)
source "$(dirname "$0")/testlib.bash"

head -c 4000 /dev/zero > zeros.f32
"$GC" encode zeros.f32 --raw f32 --shape 10x100 -o small.gcs

expect_exit 3 "a tensor over --max-elements is refused" -- "$GC" decode small.gcs --raw -o out.raw --max-elements 999
expect_stderr "max_elements=999"
expect_stderr "raise the cap with --max-elements"
expect_absent out.raw
expect_exit 3 "decode to HDF5 applies the cap too" -- "$GC" decode small.gcs -o out.h5 --max-elements 999
expect_absent out.h5
expect_exit 3 "inspect applies the cap too" -- "$GC" inspect small.gcs --max-elements 999
expect_stderr "--max-elements"
expect_exit 0 "the cap itself is allowed" -- "$GC" decode small.gcs --raw -o out.raw --max-elements 1000
rm -f out.raw

expect_exit 3 "a record over --max-record-bytes is refused" -- "$GC" decode small.gcs --raw -o out.raw --max-record-bytes 64
expect_stderr "max_record_bytes=64"
expect_stderr "raise the cap with --max-record-bytes"
expect_absent out.raw
expect_exit 3 "inspect applies the record cap" -- "$GC" inspect small.gcs --max-record-bytes 64
expect_exit 0 "a cap of 2^64-1 elements does not wrap around" -- \
    "$GC" decode small.gcs --raw -o out.raw --max-elements 18446744073709551615
if cmp -s out.raw zeros.f32; then pass "and decodes the values"; else fail "values differ"; fi

# Caps in bytes: per tensor (--max-tensor-bytes) and in total (--max-total-bytes), exit 3
# naming the flag. 64 MiB of zeros make a stream of a few hundred bytes: a small bomb. (Its
# codec decodes whole tensors; sparse ones decode in slabs, below.)
rm -f out.raw
head -c $((64 << 20)) /dev/zero | "$GC" encode - --raw f32 --shape 16777216 -o bomb.gcs --codec lossless
size=$(stat -c %s bomb.gcs)
if [ "$size" -lt 100000 ]; then pass "64 MiB of zeros make a $size-byte stream"; else fail "bomb is $size bytes"; fi
expect_exit 3 "a tensor over --max-tensor-bytes is refused" -- "$GC" decode bomb.gcs -o out.h5 --max-tensor-bytes 32M
expect_stderr "raise it with --max-tensor-bytes"
expect_absent out.h5
expect_exit 3 "inspect applies it too" -- "$GC" inspect bomb.gcs --max-tensor-bytes 32M
expect_exit 3 "decode --raw applies it too" -- "$GC" decode bomb.gcs --raw -o out.raw --max-tensor-bytes 32M
expect_absent out.raw
"$GC" encode "$SAMPLE" -o sample.gcs
expect_exit 3 "a stream past --max-total-bytes in all is refused" -- "$GC" decode sample.gcs -o out.h5 --max-total-bytes 64K
expect_stderr "raise it with --max-total-bytes"
expect_absent out.h5
expect_exit 0 "raising the caps lets it through" -- "$GC" decode bomb.gcs --raw -o out.raw --max-tensor-bytes 64M --max-total-bytes 1G
rm -f out.raw
# A top-k tensor decodes in slabs: --max-tensor-bytes caps the kept values it holds, not its
# size, and --max-total-bytes its output.
head -c $((64 << 20)) /dev/zero | "$GC" encode - --raw f32 --shape 16777216 -o sparse.gcs --codec topk:density=0.001
expect_exit 0 "a top-k tensor over --max-tensor-bytes decodes in slabs" -- "$GC" decode sparse.gcs --raw -o out.raw --max-tensor-bytes 32M
if cmp -s out.raw <(head -c $((64 << 20)) /dev/zero); then pass "to its 64 MiB of zeros"; else fail "slab-decoded values differ"; fi
rm -f out.raw
expect_exit 0 "to HDF5 too" -- "$GC" decode sparse.gcs -o out.h5 --max-tensor-bytes 32M
rm -f out.h5
expect_exit 3 "its kept values over --max-tensor-bytes are refused" -- "$GC" decode sparse.gcs --raw -o out.raw --max-tensor-bytes 100K
expect_stderr "decoding it in slabs needs about"
expect_stderr "raise it with --max-tensor-bytes"
expect_absent out.raw
expect_exit 3 "its output over --max-total-bytes is refused" -- "$GC" decode sparse.gcs -o out.h5 --max-total-bytes 32M
expect_stderr "raise it with --max-total-bytes"
expect_absent out.h5
# Under a 60 MB address-space limit the 64 MiB tensor cannot be allocated: still a refused
# bomb (exit 3) naming the flag, not an I/O failure. (A sanitizer build needs terabytes of
# address space for its shadow memory and cannot run under the limit at all: skipped there.)
if bash -c "ulimit -v 60000; exec '$GC' decode small.gcs --raw -o /dev/null" 2>/dev/null; then
    expect_exit 3 "an allocation the stream caused that fails is exit 3 naming the flag" -- \
        bash -c "ulimit -v 60000; exec '$GC' decode bomb.gcs --raw -o out.raw"
    expect_stderr "--max-tensor-bytes"
    expect_absent out.raw
else
    echo "skipped: this build cannot run under a 60 MB address-space limit"
fi

# Zero and negative caps are refused, not read as "no cap".
for flag in --max-elements --max-record-bytes --max-tensor-bytes --max-total-bytes; do
    expect_exit 2 "$flag -1 is a usage error" -- "$GC" decode small.gcs -o out.h5 $flag -1
    expect_exit 2 "$flag 0 is a usage error" -- "$GC" decode small.gcs -o out.h5 $flag 0
done
finish
