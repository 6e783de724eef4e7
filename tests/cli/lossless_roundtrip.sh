# The lossless round trip of a real dump and of a fixture with every object kind is exact (h5diff 0).
source "$(dirname "$0")/testlib.bash"

expect_exit 0 "encode the sample dump" -- "$GC" encode "$SAMPLE" -o s.gcs
expect_exit 0 "decode it" -- "$GC" decode s.gcs -o back.h5
expect_exit 0 "h5diff finds the round trip identical" -- h5diff "$SAMPLE" back.h5

"$MAKE_FIXTURE" fixture.h5
expect_exit 0 "encode the fixture" -- "$GC" encode fixture.h5 -o f.gcs
expect_exit 0 "decode the fixture" -- "$GC" decode f.gcs -o f.h5
expect_exit 0 "h5diff finds the fixture identical" -- h5diff fixture.h5 f.h5
# h5diff compares values; the types, links and string layouts must match too. Byte order is a
# storage detail like chunking: decode writes little-endian (format-spec/FORMAT.md).
h5dump -H fixture.h5 | grep -v '^HDF5 "' | sed 's/F32BE/F32LE/' > want.txt
h5dump -H f.h5 | grep -v '^HDF5 "' > got.txt
if diff want.txt got.txt >/dev/null; then pass "h5dump -H headers match (types, attributes, links)"; else fail "headers differ: $(diff want.txt got.txt | head -20)"; fi
finish
