# gradcodec simulate: per-step error, cumulative drift and bytes; error feedback keeps the
# drift of a sparsifier bounded where the plain codec's stays high.
source "$(dirname "$0")/testlib.bash"

for ef in on off; do
    expect_exit 0 "topk with error feedback $ef" -- bash -c "'$GC' simulate '$SAMPLE' --codec topk:density=0.01 --error-feedback $ef --json > $ef.json"
done
steps=$(jq '.steps | length' on.json)
[ "$steps" -eq 10 ] && pass "ten steps" || fail "$steps steps"
first=$(jq '.steps[0] | (.drift == .rel_l2)' on.json)
[ "$first" = "true" ] && pass "first step: drift equals its rel_l2" || fail "first step $(jq -c '.steps[0]' on.json)"
same=$(jq -n --slurpfile a on.json --slurpfile b off.json '$a[0].steps[0].rel_l2 == $b[0].steps[0].rel_l2')
[ "$same" = "true" ] && pass "nothing carried into the first step" || fail "first steps differ"
if jq -n --slurpfile a on.json --slurpfile b off.json '$a[0].total.drift < 0.8 * $b[0].total.drift' | grep -q true; then
    pass "error feedback: final drift $(jq .total.drift on.json) < plain $(jq .total.drift off.json)"
else
    fail "error feedback does not reduce drift: $(jq .total.drift on.json) vs $(jq .total.drift off.json)"
fi
bytes=$(jq '[.steps[].bytes] | add' on.json)
[ "$bytes" -eq "$(jq .total.bytes on.json)" ] && [ "$bytes" -gt 0 ] && pass "bytes add up ($bytes)" || fail "bytes $bytes"
lossless=$(jq '[.steps[].drift] | max' <("$GC" simulate "$SAMPLE" --codec lossless --json))
[ "$lossless" = "0" ] && pass "a lossless codec never drifts" || fail "lossless drift $lossless"

expect_exit 0 "DGC with momentum correction, as a table" -- bash -c "'$GC' simulate '$SAMPLE' --codec dgc:density=0.01 --momentum 0.9 > table.txt"
[ "$(wc -l < table.txt)" -eq 11 ] && head -1 table.txt | grep -q drift && pass "table: header and ten steps" || fail "table: $(cat table.txt)"

expect_exit 2 "a bad --error-feedback" -- "$GC" simulate "$SAMPLE" --codec topk --error-feedback maybe
expect_exit 2 "momentum out of range" -- "$GC" simulate "$SAMPLE" --codec topk --momentum 1.5
expect_exit 2 "a codec is required" -- "$GC" simulate "$SAMPLE"
expect_exit 2 "a bad codec" -- "$GC" simulate "$SAMPLE" --codec nope
expect_exit 4 "a missing input" -- "$GC" simulate missing.h5 --codec topk
finish
