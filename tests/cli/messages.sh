# Messages and exit codes a user meets: suggestions for typos, hostile names kept off the
# terminal and out of JSON trouble, failed writes to standard output, hints that fit the command.
source "$(dirname "$0")/testlib.bash"
MAKE="$(dirname "$MAKE_FIXTURE")/make_hostile_hdf5"

expect_exit 2 "an unknown subcommand is a usage error" -- "$GC" encdoe x -o y
expect_stderr "did you mean 'encode'"
expect_exit 0 "a mistyped subcommand gets one line, its suggestion" -- test "$(wc -l < "$WORK/stderr")" -eq 1
expect_exit 2 "a word far from every subcommand is named, with where to look" -- "$GC" bogus
expect_stderr "unknown command 'bogus' (gradcodec --help lists the commands)"
expect_exit 2 "no subcommand at all prints the help (usage error)" -- "$GC"
expect_stderr "Subcommands:"
expect_stderr "encode"
expect_exit 2 "a mistyped flag is a usage error" -- "$GC" encode "$SAMPLE" -o x.gcs --froce
expect_stderr "did you mean '--force'"
expect_absent x.gcs

# Names with an escape sequence and with invalid UTF-8.
"$MAKE" odd-names odd.h5
expect_exit 0 "names with escapes and invalid UTF-8 encode" -- "$GC" encode odd.h5 -o odd.gcs
expect_exit 0 "inspect --json does not abort on invalid UTF-8" -- bash -c "'$GC' inspect odd.gcs --json > odd.json"
expect_exit 0 "and prints valid JSON" -- jq -e '.tensors | length == 2' odd.json
expect_exit 0 "fit --json does not abort either" -- bash -c "'$GC' fit odd.h5 --json > fit.json"
expect_exit 0 "and prints valid JSON" -- jq -e '.tensors | length == 2' fit.json
"$GC" inspect odd.gcs > table.txt
if grep -q $'\x1b' table.txt; then fail "the table holds a raw escape character"; else pass "the table escapes control characters"; fi
if grep -qF 'evil\x1b[31mred' table.txt; then pass "shown as \\x1b"; else fail "escaped name missing: $(cat table.txt)"; fi

# Writing standard output can fail: that is an I/O error, exit 4.
if [ -w /dev/full ]; then
    expect_exit 4 "inspect > /dev/full is an I/O failure" -- bash -c "'$GC' inspect odd.gcs > /dev/full"
    expect_exit 4 "fit > /dev/full is an I/O failure" -- bash -c "'$GC' fit odd.h5 > /dev/full"
fi

# Hints fit the situation.
expect_exit 3 "decode of an HDF5 file says it is not a stream" -- "$GC" decode "$SAMPLE" -o out.h5
expect_stderr "$SAMPLE: not a gradcodec stream"
expect_stderr "gradcodec encode"
echo "not hdf5" > text.txt
expect_exit 3 "fit of a non-HDF5 file is bad input" -- "$GC" fit text.txt
if grep -q -- "--raw" "$WORK/stderr"; then fail "fit hints at --raw, which it lacks"; else pass "fit does not hint at --raw"; fi
"$MAKE_FIXTURE" nan.h5 --nan
expect_exit 3 "a NaN under fft is refused even with --allow-nonfinite" -- \
    "$GC" encode nan.h5 -o out.gcs --codec fft:density=0.1 --allow-nonfinite --select 'step_00010/fc.weight'
expect_stderr "even with --allow-nonfinite"
expect_absent out.gcs

# On a terminal, encode's progress line counts against the dump's total: "encode 3/80: name".
if command -v script >/dev/null; then
    script -qc "'$GC' encode '$SAMPLE' -o progress.gcs -T 1" /dev/null | tr '\r' '\n' > progress.txt
    grep -q 'encode 1/80: step_00000/bn.bias' progress.txt && grep -q 'encode 80/80: step_00090/fc.weight' progress.txt \
        && pass "progress lines show the total" || fail "progress: $(head -c 300 progress.txt | cat -v)"
    script -qc "'$GC' repack '$SAMPLE' -o progress.h5 -T 1" /dev/null | tr '\r' '\n' > progress.txt
    grep -q 'repack 80/80: step_00090/fc.weight' progress.txt \
        && pass "repack's progress lines show the total" || fail "repack progress: $(head -c 300 progress.txt | cat -v)"
else
    echo "skipped: no script(1) to give encode a terminal"
fi
finish
