# Outputs are never clobbered by accident, inputs never touched, failures leave nothing behind.
source "$(dirname "$0")/testlib.bash"

"$GC" encode "$SAMPLE" -o s.gcs
before=$(sha256sum "$SAMPLE" s.gcs)
expect_exit 2 "an existing OUTPUT is not replaced without --force" -- "$GC" encode "$SAMPLE" -o s.gcs
expect_stderr "--force"
expect_exit 0 "--force replaces it" -- "$GC" encode "$SAMPLE" -o s.gcs --force
cp s.gcs copy.gcs
expect_exit 2 "OUTPUT equal to INPUT is refused even with --force" -- "$GC" decode copy.gcs -o copy.gcs --force
expect_stderr "same file as INPUT"
ln -s copy.gcs alias.gcs
expect_exit 2 "OUTPUT that is INPUT through a link is refused" -- "$GC" decode copy.gcs -o alias.gcs --force
if [ "$before" = "$(sha256sum "$SAMPLE" s.gcs)" ]; then pass "inputs untouched"; else fail "an input changed"; fi

expect_exit 4 "a missing INPUT is an I/O error" -- "$GC" encode nothere.h5 -o x.gcs
expect_stderr "nothere.h5"
expect_absent x.gcs
echo "not hdf5" > text.txt
expect_exit 3 "a non-HDF5 INPUT is bad input" -- "$GC" encode text.txt -o x.gcs
expect_stderr "not an HDF5 file"
expect_absent x.gcs
expect_exit 4 "an OUTPUT in a missing directory is an I/O error" -- "$GC" encode "$SAMPLE" -o nodir/x.gcs

expect_exit 2 "an unknown codec is a usage error listing the codecs" -- "$GC" encode "$SAMPLE" -o x.gcs --codec zip
expect_stderr "valid codecs: lossless"
expect_exit 2 "an unknown key lists the valid keys" -- "$GC" encode "$SAMPLE" -o x.gcs --codec cast:bits=3
expect_stderr "valid keys: to"
expect_exit 2 "an unknown option is a usage error" -- "$GC" encode "$SAMPLE" -o x.gcs --frobnicate
expect_absent x.gcs
expect_exit 0 "--help exits 0" -- "$GC" encode --help
"$GC" --help > help.txt
if grep -q "Exit codes: 0 ok, 2 usage error, 3 bad input or damaged stream, 4 I/O failure" help.txt; then pass "--help documents exit codes"; else fail "--help lacks exit codes"; fi
"$GC" --version > version.txt
if grep -q "format 1.2" version.txt && grep -q "fftw" version.txt; then pass "--version prints format and FFT backends"; else fail "--version: $(cat version.txt)"; fi
finish
