# encode --target: rate and error targets met per step, pointwise bounds met per value, and
# clear usage errors where a codec has no knob or the target cannot be met.
source "$(dirname "$0")/testlib.bash"

for case in topk:1 dgc:1 sidco:1 fft:1 dct:1 rangeq:5; do
    codec=${case%:*} bits=${case#*:}
    expect_exit 0 "$codec --target bits=$bits" -- bash -c "'$GC' encode '$SAMPLE' -o b.gcs --force --codec $codec --scope group --target bits=$bits --quiet --select 'step_000[0-2]*' && '$GC' inspect b.gcs --json > b.json"
    over=$(jq --argjson b "$bits" '[.groups[] | select(.name | test("^step_000[0-2]")) | select(.bytes_out * 8 > .elements * $b)] | length' b.json)
    [ "$over" -eq 0 ] && pass "$codec: every step within $bits bits/value" || fail "$codec: $(jq -c '[.groups[] | .bits_per_value]' b.json)"
done
expect_exit 2 "rangeq cannot go below 2 bits" -- "$GC" encode "$SAMPLE" -o no.gcs --codec rangeq --target bits=1
expect_stderr "out of reach for rangeq"
expect_exit 0 "topk bits=0.5 lands close to the budget" -- bash -c "'$GC' encode '$SAMPLE' -o b.gcs --force --codec topk --scope group --target bits=0.5 --quiet && '$GC' inspect b.gcs --json > b.json"
low=$(jq '[.groups[].bits_per_value] | min > 0.49' b.json)
[ "$low" = "true" ] && pass "no step leaves more than 2% of its budget unspent" || fail "$(jq -c '[.groups[] | .bits_per_value]' b.json)"

for codec in topk fft rangeq; do
    expect_exit 0 "$codec --target rel_l2=0.3" -- bash -c "'$GC' encode '$SAMPLE' -o e.gcs --force --codec $codec --scope group --target rel_l2=0.3 --select 'step_000[0-2]*' 2> notes && '$GC' inspect e.gcs --against '$SAMPLE' --json > e.json"
    over=$(jq '[.groups[] | select(.metrics.rel_l2 > 0.3)] | length' e.json)
    [ "$over" -eq 0 ] && pass "$codec: every step within rel_l2 0.3" || fail "$codec: $(jq -c '[.groups[] | .metrics.rel_l2]' e.json)"
done
grep -q 'chose rangeq:bits=' notes && pass "the choice is reported" || fail "notes: $(cat notes)"

expect_exit 0 "rangeq --target abs=1e-3" -- bash -c "'$GC' encode '$SAMPLE' -o a.gcs --codec rangeq --target abs=1e-3 --quiet && '$GC' inspect a.gcs --against '$SAMPLE' --json > a.json"
over=$(jq '[.tensors[] | select(.metrics.max_abs > 1e-3)] | length' a.json)
[ "$over" -eq 0 ] && pass "every value within 1e-3 (max $(jq '[.tensors[].metrics.max_abs] | max' a.json))" || fail "$over tensors over"
expect_exit 0 "cast --target rel=0.01" -- bash -c "'$GC' encode '$SAMPLE' -o c.gcs --codec cast --target rel=0.01 --quiet"

expect_exit 2 "a pointwise bound no setting meets" -- "$GC" encode "$SAMPLE" -o no.gcs --codec rangeq --target abs=1e-12
expect_stderr "no rangeq setting keeps every value within abs=1e-12"
expect_absent no.gcs
expect_exit 2 "a codec without the knob" -- "$GC" encode "$SAMPLE" -o no.gcs --codec lossless --target bits=4
expect_stderr "has no knob"
expect_exit 2 "abs on a sparse codec" -- "$GC" encode "$SAMPLE" -o no.gcs --codec topk --target abs=0.1
expect_exit 2 "the spec fixes the knob" -- "$GC" encode "$SAMPLE" -o no.gcs --codec topk:density=0.1 --target bits=1
expect_stderr "remove it"
expect_exit 2 "an unknown target" -- "$GC" encode "$SAMPLE" -o no.gcs --codec topk --target psnr=40
expect_exit 2 "a rate below what one value costs" -- "$GC" encode "$SAMPLE" -o no.gcs --codec topk --target bits=0.01 --scope group
expect_stderr "out of reach"
expect_absent no.gcs
finish
