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
finish
