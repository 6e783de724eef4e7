# encode --scope group: the threshold codecs choose across each step's tensors. topk keeps
# exactly ceil(D*N) of the step, and the step's error drops at no more bytes; inspect shows
# the per-step totals.
source "$(dirname "$0")/testlib.bash"

for codec in topk:density=0.01 dgc:density=0.01 sidco:density=0.01 fft:density=0.05 dct:density=0.05; do
    for scope in tensor group; do
        expect_exit 0 "$codec at $scope scope" -- bash -c "'$GC' encode '$SAMPLE' -o $scope.gcs --force --codec $codec --scope $scope && '$GC' inspect $scope.gcs --against '$SAMPLE' --json > $scope.json"
    done
    if jq -n --slurpfile t tensor.json --slurpfile g group.json \
        '$g[0].total.metrics.rel_l2 < $t[0].total.metrics.rel_l2 and $g[0].total.bytes_out <= $t[0].total.bytes_out' | grep -q true; then
        pass "$codec: group rel_l2 $(jq .total.metrics.rel_l2 group.json) < tensor $(jq .total.metrics.rel_l2 tensor.json) at no more bytes"
    else
        fail "$codec: group $(jq -c '.total | [.bytes_out, .metrics.rel_l2]' group.json) vs tensor $(jq -c '.total | [.bytes_out, .metrics.rel_l2]' tensor.json)"
    fi
done

expect_exit 0 "topk at group scope" -- bash -c "'$GC' encode '$SAMPLE' -o g.gcs --codec topk:density=0.01 --scope group && '$GC' inspect g.gcs --json > g.json"
groups=$(jq '.groups | length' g.json)
[ "$groups" -eq 10 ] && pass "inspect lists the ten steps" || fail "$groups groups"
wrong=$(jq '[.groups[] | select(.kept != 292 or .elements != 29194)] | length' g.json)
[ "$wrong" -eq 0 ] && pass "each step keeps exactly ceil(0.01 * 29194) = 292" || fail "$(jq -c '[.groups[] | .kept]' g.json)"
sum=$(jq '[.groups[].bytes_out] | add' g.json)
records=$(jq '[.tensors[].bytes_out] | add' g.json)
[ "$sum" -eq "$records" ] && pass "group bytes add up to their records" || fail "groups $sum, records $records"
varied=$(jq '[.tensors[] | select(.name | startswith("step_00000/")) | .kept] | unique | length' g.json)
[ "$varied" -gt 1 ] && pass "the step's budget is spread unevenly over its tensors" || fail "every tensor kept the same"
expect_exit 0 "the group-scoped stream decodes" -- bash -c "'$GC' decode g.gcs -o g.h5 && h5ls -r g.h5 | grep -c Dataset | grep -qx 80"
expect_exit 0 "the table shows group rows" -- bash -c "'$GC' inspect g.gcs | grep -q '^step_00090/\*'"

expect_exit 0 "a codec without group scope encodes per tensor" -- bash -c "'$GC' encode '$SAMPLE' -o r.gcs --codec rangeq:bits=8 --scope group && '$GC' encode '$SAMPLE' -o r2.gcs --codec rangeq:bits=8 && cmp r.gcs r2.gcs"
expect_exit 0 "group scope from standard input" -- bash -c "'$GC' encode - -o s.gcs --codec topk:density=0.01 --scope group < '$SAMPLE' && cmp s.gcs g.gcs"
expect_exit 2 "a bad scope" -- "$GC" encode "$SAMPLE" -o bad.gcs --scope step
expect_stderr "expected tensor or group"
expect_absent bad.gcs
finish
