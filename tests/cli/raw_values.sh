# Raw little-endian input and output: a single-tensor stream, values back in their dtype.
source "$(dirname "$0")/testlib.bash"

head -c 4096 /dev/urandom > noise.f32   # 1024 arbitrary f32 bit patterns, NaNs included
expect_exit 0 "raw f32 encodes lossless" -- "$GC" encode noise.f32 --raw f32 --shape 32x32 -o n.gcs
expect_exit 0 "decode --raw writes the values" -- "$GC" decode n.gcs --raw -o back.f32
if cmp -s noise.f32 back.f32; then pass "raw round trip is bit-exact"; else fail "raw round trip differs"; fi
"$GC" decode n.gcs --raw -o - > stdout.f32
if cmp -s noise.f32 stdout.f32; then pass "decode --raw -o - writes to stdout"; else fail "stdout raw differs"; fi
cat noise.f32 | "$GC" encode - --raw f32 --shape 1024 -o - | "$GC" decode - --raw -o piped.f32
if cmp -s noise.f32 piped.f32; then pass "raw through pipes"; else fail "raw pipe differs"; fi
expect_exit 3 "a shape that does not match the bytes is bad input" -- "$GC" encode noise.f32 --raw f32 --shape 10x10 -o x.gcs
expect_stderr "needs exactly 400 bytes"
expect_absent x.gcs
expect_exit 0 "--raw without --shape reads a regular file as one dimension" -- "$GC" encode noise.f32 --raw f32 -o flat.gcs
expect_exit 0 "of all its values" -- bash -c "'$GC' inspect flat.gcs --json | jq -e '.tensors[0].shape == [1024]'"
expect_exit 2 "--raw from standard input without --shape is a usage error" -- bash -c "'$GC' encode - --raw f32 -o x.gcs < noise.f32"
expect_stderr "needs --shape"
expect_absent x.gcs
head -c 10 noise.f32 > ten.bytes
expect_exit 3 "a file that is no whole number of values is bad input" -- "$GC" encode ten.bytes --raw f32 -o x.gcs
expect_stderr "not a whole number of f32 values"
expect_absent x.gcs
expect_exit 2 "--shape without --raw is a usage error" -- "$GC" encode "$SAMPLE" --shape 4 -o x.gcs
# The stream, not the command line, lacks what --raw needs: bad input.
expect_exit 3 "decode --raw of a multi-tensor stream is bad input" -- bash -c "'$GC' encode '$SAMPLE' -o s.gcs && '$GC' decode s.gcs --raw -o x.raw"
expect_stderr "more than one tensor"
expect_absent x.raw
"$(dirname "$MAKE_FIXTURE")/make_hostile_hdf5" groups-only groups_only.h5
"$GC" encode groups_only.h5 -o empty.gcs
expect_exit 3 "decode --raw of a stream with no tensor is bad input" -- "$GC" decode empty.gcs --raw -o x.raw
expect_stderr "holds no tensor"
expect_absent x.raw
finish
