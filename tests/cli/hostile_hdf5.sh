# Legal but hostile HDF5 input: deep trees, wide groups, many and large attributes, storage in
# other files, declared sizes far beyond the data. Encode and fit refuse what they must with
# exit 3 and a message naming the object, finish the rest quickly, and what encode accepts
# decode rebuilds.
source "$(dirname "$0")/testlib.bash"
MAKE="$(dirname "$MAKE_FIXTURE")/make_hostile_hdf5"

# A tree deeper than the documented cap (512) is refused, not a stack overflow.
"$MAKE" deep deep.h5 10000
expect_exit 3 "a 10,000-deep group tree is refused by encode" -- "$GC" encode deep.h5 -o out.gcs
expect_stderr "deeper than 512 levels"
expect_absent out.gcs
expect_exit 3 "... and by fit" -- "$GC" fit deep.h5
"$MAKE" deep shallow.h5 500
expect_exit 0 "a 500-deep tree encodes" -- "$GC" encode shallow.h5 -o shallow.gcs

# Listing is linear: 10,000 datasets in one group, 4,000 attributes on one dataset.
"$MAKE" wide wide.h5 10000
SECONDS=0
expect_exit 0 "10,000 datasets in one group encode" -- "$GC" encode wide.h5 -o wide.gcs
if [ "$SECONDS" -le 10 ]; then pass "in ${SECONDS}s"; else fail "10,000 datasets took ${SECONDS}s"; fi
"$MAKE" many-attrs attrs.h5 4000
SECONDS=0
expect_exit 0 "4,000 attributes encode" -- "$GC" encode attrs.h5 -o attrs.gcs
if [ "$SECONDS" -le 10 ]; then pass "in ${SECONDS}s"; else fail "4,000 attributes took ${SECONDS}s"; fi
expect_exit 0 "and decode" -- "$GC" decode attrs.gcs -o attrs_back.h5
# (h5diff takes minutes over 4,000 attributes: re-encoding and comparing streams is exact too.)
"$GC" encode attrs_back.h5 -o attrs_again.gcs
if cmp -s attrs.gcs attrs_again.gcs; then pass "to the same attributes"; else fail "attributes changed in the round trip"; fi
# One attribute more than a record carries: refused, naming the object that has them.
"$MAKE" many-attrs too_many.h5 4097
expect_exit 3 "4,097 attributes are refused" -- "$GC" encode too_many.h5 -o too_many.gcs
expect_stderr "/x: 4097 attributes, more than the 4096 a record can carry"
expect_absent too_many.gcs

# An attribute of 100,000 bytes (dense storage) and one of 0 elements round-trip.
"$MAKE" big-attr big.h5
expect_exit 0 "big and empty attributes encode" -- "$GC" encode big.h5 -o big.gcs
expect_exit 0 "and decode" -- "$GC" decode big.gcs -o big_back.h5
expect_exit 0 "to the same file content" -- h5diff -c big.h5 big_back.h5

# External raw storage and virtual datasets read other files: refused by default.
printf 'secret data of another file, never to be embedded in a stream..' > secret.txt
"$MAKE" external external.h5 "$WORK/secret.txt"
expect_exit 3 "external storage is refused" -- "$GC" encode external.h5 -o out.gcs
expect_stderr "/leak: stored in external files"
expect_absent out.gcs
expect_exit 3 "... with --allow-external too when the file is outside INPUT's folder" -- \
    "$GC" encode external.h5 -o out.gcs --allow-external
expect_stderr "outside INPUT's folder"
mkdir -p inside && cp secret.txt inside/ && (cd inside && "$MAKE" external ext_rel.h5 secret.txt)
expect_exit 0 "--allow-external reads a relative external file below INPUT's folder" -- \
    "$GC" encode inside/ext_rel.h5 -o rel.gcs --allow-external
"$GC" encode "$SAMPLE" -o src.gcs && "$GC" decode src.gcs -o src.h5
"$MAKE" vds vds.h5 src.h5
expect_exit 3 "a virtual dataset is refused" -- "$GC" encode vds.h5 -o out.gcs
expect_stderr "/virtual: a virtual dataset"
expect_exit 3 "inspect --against refuses it too" -- "$GC" inspect src.gcs --against vds.h5
expect_exit 3 "fit refuses it too" -- "$GC" fit external.h5

# A 500-byte file declaring 8e9 floats (unwritten chunks) is refused before any read.
"$MAKE" unwritten unwritten.h5 8000000000
expect_exit 3 "encode refuses a dataset over the per-tensor cap" -- "$GC" encode unwritten.h5 -o out.gcs
expect_stderr "--max-tensor-bytes"
expect_absent out.gcs
expect_exit 3 "fit refuses it too" -- "$GC" fit unwritten.h5
"$MAKE" unwritten small_unwritten.h5 1000000
expect_exit 3 "an explicit --max-tensor-bytes applies" -- "$GC" encode small_unwritten.h5 -o out.gcs --max-tensor-bytes 1M
expect_exit 0 "and a tensor under it passes" -- "$GC" encode small_unwritten.h5 -o small.gcs --max-tensor-bytes 4M

# String datasets (here written by the C library, without h5py) travel losslessly.
"$MAKE" strings strings.h5
expect_exit 0 "string datasets are carried" -- "$GC" encode strings.h5 -o strings.gcs
expect_exit 0 "and decoded" -- "$GC" decode strings.gcs -o strings_out.h5
expect_exit 0 "to the same names and values" -- h5diff strings.h5 strings_out.h5
finish
