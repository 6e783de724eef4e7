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

# A pointwise bound no setting meets on a tensor sends that tensor to lossless, not the run to
# an error; one line at the end names every such tensor. Here "wide" spans 1e-3 to 1e4, which
# no rangeq width holds within 1e-4; "narrow" is met.
python3 -c "
import random, struct
random.seed(3)
open('narrow.f32', 'wb').write(struct.pack('<4096f', *[random.uniform(-1e-3, 1e-3) for _ in range(4096)]))
open('wide.f32', 'wb').write(struct.pack('<4096f', *[random.choice((1e4, -1e-3)) * random.random() for _ in range(4096)]))
"
for name in narrow wide; do
    "$GC" encode "$name.f32" --raw f32 -o "$name.gcs" --quiet && "$GC" decode "$name.gcs" -o "$name.h5" --quiet
    h5copy -p -i "$name.h5" -o two.h5 -s /data -d "/step_0/$name"
done
expect_exit 0 "abs=1e-4: the tensor no rangeq setting meets is written lossless" -- \
    bash -c "'$GC' encode two.h5 -o two.gcs --codec rangeq --target abs=1e-4 && '$GC' inspect two.gcs --against two.h5 --json > two.json"
expect_stderr "1 tensor could not meet abs=1e-4 with rangeq; written lossless: step_0/wide"
[ "$(grep -c 'could not meet' stderr)" -eq 1 ] && pass "one summary line" || fail "summary lines: $(cat stderr)"
wide=$(jq -c '[.tensors[] | select(.name | endswith("wide")) | {codec, max_abs: .metrics.max_abs}]' two.json)
narrow=$(jq -c '[.tensors[] | select(.name | endswith("narrow")) | (.codec | startswith("rangeq")) and .metrics.max_abs <= 1e-4]' two.json)
[ "$wide" = '[{"codec":"lossless","max_abs":0}]' ] && [ "$narrow" = "[true]" ] \
    && pass "wide written lossless and exact, narrow by rangeq within 1e-4" || fail "wide $wide, narrow $narrow"
expect_exit 0 "with --quiet no summary" -- "$GC" encode two.h5 -o two.gcs --force --codec rangeq --target abs=1e-4 --quiet
[ ! -s stderr ] && pass "--quiet: nothing on stderr" || fail "stderr: $(cat stderr)"
expect_exit 0 "a bound no tensor meets: every tensor lossless" -- "$GC" encode "$SAMPLE" -o all.gcs --codec rangeq --target abs=1e-12
expect_stderr "tensors could not meet abs=1e-12 with rangeq; written lossless: step_00000/bn.bias,"
expect_stderr " more)"
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
