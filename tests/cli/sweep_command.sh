# gradcodec sweep: every default codec family measured on the sample, the Pareto front
# consistent with the figures, CSV and an SVG plot, and clear usage errors.
source "$(dirname "$0")/testlib.bash"

expect_exit 0 "default sweep as JSON" -- bash -c "'$GC' sweep '$SAMPLE' --json > sweep.json"
for family in lossless cast rangeq topk dgc sidco fft dct; do
    n=$(jq --arg f "$family" '[.codecs[] | select(.family == $f)] | length' sweep.json)
    if [ "$n" -ge 1 ]; then pass "default list covers $family ($n)"; else fail "default list lacks $family"; fi
done
values=$(jq '.values' sweep.json)
[ "$values" -eq 291940 ] && pass "all 291940 float values measured" || fail "values $values"
exact=$(jq '[.codecs[] | select(.family == "lossless")][0].rel_l2' sweep.json)
[ "$exact" = "0" ] && pass "lossless is exact" || fail "lossless rel_l2 $exact"
# No row on the front is beaten in both rate and error; every row off it is.
bad=$(jq '[.codecs as $all | .codecs[] | . as $r |
            ([$all[] | select(.bits_per_value <= $r.bits_per_value and .rel_l2 <= $r.rel_l2 and
               (.bits_per_value < $r.bits_per_value or .rel_l2 < $r.rel_l2))] | length) as $d |
            select(($d == 0) != .pareto)] | length' sweep.json)
[ "$bad" -eq 0 ] && pass "Pareto marks agree with the figures" || fail "$bad rows marked wrongly"
front=$(jq '[.codecs[] | select(.pareto)] | length' sweep.json)
[ "$front" -ge 3 ] && pass "front of $front codecs" || fail "front of $front codecs"
scope=$(jq -r '[.codecs[] | select(.family == "topk")][0].scope' sweep.json)
[ "$scope" = "tensor" ] && pass "topk swept at tensor scope, encode's default" || fail "topk scope $scope"

expect_exit 0 "topk at both scopes" -- bash -c "'$GC' sweep '$SAMPLE' --codecs 'topk:density=0.01' --scope tensor --json > t.json && '$GC' sweep '$SAMPLE' --codecs 'topk:density=0.01' --scope group --json > g.json"
if jq -n --slurpfile t t.json --slurpfile g g.json '$g[0].codecs[0].rel_l2 < $t[0].codecs[0].rel_l2 and $g[0].codecs[0].bits_per_value <= $t[0].codecs[0].bits_per_value' | grep -q true; then
    pass "group scope: smaller error at no more bits"
else
    fail "group scope does not beat tensor scope: $(jq -c .codecs t.json g.json)"
fi

# One default scope: what sweep reports for a setting is what encode then writes with it.
expect_exit 0 "sweep and encode, both at their default scope" -- bash -c "'$GC' sweep '$SAMPLE' --codecs 'topk:density=0.01' --json > d.json && '$GC' encode '$SAMPLE' -o d.gcs --codec topk:density=0.01 --quiet && '$GC' inspect d.gcs --against '$SAMPLE' --json > e.json"
if jq -n -e --slurpfile s d.json --slurpfile e e.json '(($s[0].codecs[0].rel_l2 - $e[0].total.metrics.rel_l2) | fabs) < 1e-6 * $e[0].total.metrics.rel_l2' > /dev/null; then
    pass "sweep's rel_l2 $(jq '.codecs[0].rel_l2' d.json) is encode's"
else
    fail "sweep rel_l2 $(jq '.codecs[0].rel_l2' d.json), encode's $(jq '.total.metrics.rel_l2' e.json)"
fi
for command in encode sweep simulate; do
    "$GC" $command --help > help.txt
    grep -q -- '--scope TEXT=tensor' help.txt && pass "$command --help shows the default scope, tensor" || fail "$command --help: $(grep -- --scope help.txt)"
done
"$GC" encode --help > help.txt
grep -q '^  topk: .*$' help.txt && grep -q 'defaults density=0.01, values=f16; --target sets density' help.txt \
    && pass "encode --help lists topk with its defaults" || fail "encode --help: $(grep -A1 topk help.txt)"

expect_exit 0 "CSV with a plot" -- bash -c "'$GC' sweep '$SAMPLE' --codecs 'rangeq:bits=4;rangeq:bits=8;topk:density=0.01;topk:density=0.1;dgc:density=0.01;dgc:density=0.1;lossless' --csv --plot rd.svg > sweep.csv"
head -1 sweep.csv | grep -q '^codec,scope,bits_per_value,ratio,rel_l2,cosine,encode_mb_s,decode_mb_s,pareto$' && pass "CSV header" || fail "CSV header: $(head -1 sweep.csv)"
[ "$(wc -l < sweep.csv)" -eq 8 ] && pass "one CSV row per codec" || fail "CSV rows: $(cat sweep.csv)"
grep -q '<svg' rd.svg && grep -q '<polyline' rd.svg && grep -q '>rangeq (bits)<' rd.svg && grep -q 'Pareto front' rd.svg \
    && pass "SVG plot with curves and legend naming each knob" || fail "SVG plot: $(head -c 400 rd.svg)"
# Each point is labelled with its setting; topk and dgc (one family, one payload) are drawn in
# different dashes and markers, so the one does not hide the other.
for label in '>4<' '>8<' '>0.01<' '>0.1<'; do
    grep -q "$label" rd.svg && pass "a point labelled $label" || fail "no point labelled $label"
done
topk_line=$(grep -c '<polyline[^>]*stroke="#d62728"[^>]*stroke-dasharray' rd.svg)
dgc_line=$(grep -c '<polyline[^>]*stroke="#2ca02c" stroke-width="1.8" stroke-dasharray="7 4"' rd.svg)
[ "$topk_line" -eq 0 ] && [ "$dgc_line" -eq 1 ] && grep -q '<rect x="[0-9.]*" y="[0-9.]*" width="7.0" height="7.0" fill="#2ca02c"' rd.svg \
    && pass "dgc drawn dashed with square markers, topk solid with circles" || fail "styles: $(grep -E 'polyline|stroke-dasharray' rd.svg)"
expect_exit 2 "an existing plot is not replaced without --force" -- "$GC" sweep "$SAMPLE" --codecs lossless --plot rd.svg
expect_exit 0 "--force replaces it" -- bash -c "'$GC' sweep '$SAMPLE' --codecs lossless --plot rd.svg --force > /dev/null"

expect_exit 2 "a plot not named .svg" -- "$GC" sweep "$SAMPLE" --codecs lossless --plot rd.png
expect_absent rd.png
expect_exit 2 "a bad spec in the list" -- "$GC" sweep "$SAMPLE" --codecs 'topk:density=2'
expect_stderr "density"
expect_exit 2 "--json with --csv" -- "$GC" sweep "$SAMPLE" --json --csv
expect_exit 2 "a bad scope" -- "$GC" sweep "$SAMPLE" --scope step
expect_exit 4 "a missing input" -- "$GC" sweep missing.h5
expect_exit 3 "no float dataset selected" -- "$GC" sweep "$SAMPLE" --select 'nothing/*'
finish
