# A 500-byte HDF5 file can declare 3e8 floats in chunks it never wrote. The per-tensor cap
# bounds what a command holds for one tensor: fit holds several arrays per element (values,
# magnitudes, sort buffers), so fit counts its working memory against the cap, and the default
# cap shrinks with the process's address-space limit. Either way the refusal comes before any
# read: exit 3, naming the file, the tensor and the flag that raises the cap.
source "$(dirname "$0")/testlib.bash"
MAKE="$(dirname "$MAKE_FIXTURE")/make_hostile_hdf5"

"$MAKE" unwritten declared.h5 300000000
size=$(stat -c %s declared.h5)
if [ "$size" -lt 4096 ]; then pass "a $size-byte file declares 3e8 floats"; else fail "declared.h5 is $size bytes"; fi

# 1.2 GB of values pass a 2 GiB cap, but fitting them needs several times that.
expect_exit 3 "fit refuses a tensor whose working memory is over the per-tensor cap" -- \
    "$GC" fit declared.h5 --max-tensor-bytes 2G
expect_stderr "declared.h5: /huge"
expect_stderr "working memory"
expect_stderr "raise it with --max-tensor-bytes"
expect_exit 3 "fit --json too" -- "$GC" fit declared.h5 --json --max-tensor-bytes 2G
expect_stderr "declared.h5: /huge"

# A small tensor passes with the default caps, and so does the big one once the cap allows its
# working memory (not run: it takes a minute and 6 GB).
"$MAKE" unwritten small.h5 100000
expect_exit 0 "fit of a small unwritten tensor passes" -- "$GC" fit small.h5
expect_exit 3 "its working memory counts against an explicit cap" -- "$GC" fit small.h5 --max-tensor-bytes 1M
expect_stderr "small.h5: /huge"
expect_exit 0 "and a cap over it lets it through" -- "$GC" fit small.h5 --max-tensor-bytes 4M

# Under a 2 GB address-space limit the default cap is a quarter of it: encode and fit refuse
# the 1.2 GB tensor up front, naming it, instead of failing an allocation part way. (A
# sanitizer build needs terabytes of address space for its shadow memory: skipped there.)
if bash -c "ulimit -v 2000000; exec '$GC' fit small.h5" >/dev/null 2>&1; then
    expect_exit 3 "encode under ulimit -v refuses it by the default cap" -- \
        bash -c "ulimit -v 2000000; exec '$GC' encode declared.h5 -o out.gcs"
    expect_stderr "declared.h5: /huge: declares 300000000 elements"
    expect_stderr "raise it with --max-tensor-bytes"
    expect_absent out.gcs
    expect_exit 3 "fit under ulimit -v refuses it by the default cap" -- \
        bash -c "ulimit -v 2000000; exec '$GC' fit declared.h5"
    expect_stderr "declared.h5: /huge"
    expect_stderr "raise it with --max-tensor-bytes"
    expect_exit 0 "the same limit still lets a small tensor through" -- \
        bash -c "ulimit -v 2000000; exec '$GC' encode small.h5 -o small.gcs"
else
    echo "skipped: this build cannot run under a 2 GB address-space limit"
fi
finish
