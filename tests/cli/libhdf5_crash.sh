# libhdf5 itself crashes on some corrupted files, and gradcodec cannot fix that. data/
# libhdf5-crash.h5 is such a file, found by random corruption of a test fixture: libhdf5
# (1.10) reads a vlen string attribute through a damaged global heap and copies out of bounds.
# Whatever libhdf5 does with it, encode must leave no OUTPUT and no temporary, must not touch
# the input, and must end with exit 3 (a libhdf5 that refuses the file) or a crash status
# (134 SIGABRT under a sanitizer, 135 SIGBUS, 139 SIGSEGV).
source "$(dirname "$0")/testlib.bash"
DATA="$(dirname "$0")/data"

cp "$DATA/libhdf5-crash.h5" input.h5
sum_before=$(sha256sum < input.h5)
"$GC" encode input.h5 -o out.gcs -T 1 2>stderr.txt
status=$?
case $status in
    3|134|135|139) pass "encode of a file that crashes libhdf5 ends with status $status" ;;
    *) fail "encode ended with status $status, expected 3, 134, 135 or 139: $(cat stderr.txt)" ;;
esac
expect_absent out.gcs
if [ "$(sha256sum < input.h5)" = "$sum_before" ]; then pass "the input is untouched"; else fail "the input changed"; fi
"$GC" fit input.h5 >/dev/null 2>&1
status=$?
case $status in
    3|134|135|139) pass "fit ends with status $status" ;;
    *) fail "fit ended with status $status" ;;
esac
finish
