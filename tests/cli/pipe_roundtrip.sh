# encode -o - | decode - works on pipes: the writer never seeks, the reader never needs the end.
source "$(dirname "$0")/testlib.bash"

"$GC" encode "$SAMPLE" -o - | "$GC" decode - -o piped.h5
status=("${PIPESTATUS[@]}")
if [ "${status[0]}" -eq 0 ] && [ "${status[1]}" -eq 0 ]; then pass "encode | decode exits 0"; else fail "pipe exit codes ${status[*]}"; fi
expect_exit 0 "h5diff of the piped round trip" -- h5diff "$SAMPLE" piped.h5
"$GC" encode "$SAMPLE" -o - | "$GC" inspect - > table.txt
if grep -q '^total' table.txt; then pass "inspect reads a stream from stdin"; else fail "inspect - printed: $(cat table.txt)"; fi
"$GC" encode - -o from_stdin.gcs < "$SAMPLE"
expect_exit 0 "HDF5 from stdin decodes identically" -- bash -c "'$GC' decode from_stdin.gcs -o - > stdout.h5 && h5diff '$SAMPLE' stdout.h5"
finish
