# f16 gradients near the top of the f16 range (65504), as mixed-precision training produces
# before its loss scale backs off: a --target search for rangeq skips the bit counts whose
# eps f16 cannot hold, simulate carries its error-feedback residual in binary32 (a residual
# of 65504 + 65504 is beyond f16), and sweep reports a codec that refuses the tensor as one
# refused cell and measures the others.
source "$(dirname "$0")/testlib.bash"

PY=""
for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c "import h5py, numpy" 2>/dev/null; then PY="$candidate"; break; fi
done
if [ -z "$PY" ]; then echo "skipped: no python3 with h5py (scripts/common.sh installs python3-h5py)"; exit 77; fi

# Three steps, each a float16 tensor of normal gradients with values of +-60000 and 65504
# mixed in, and a small bias.
"$PY" - <<'PY' || fail "making the f16 dump failed"
import h5py, numpy as np
rng = np.random.default_rng(7)
with h5py.File("f16.h5", "w") as f:
    for step in range(3):
        g = rng.normal(0, 1e-2, 4096)
        g[::97] = 60000 * np.sign(rng.normal(size=g[::97].size))
        g[5] = 65504
        f.create_dataset(f"step_{step:05d}/w", data=g.astype(np.float16))
        f.create_dataset(f"step_{step:05d}/b", data=rng.normal(0, 1e-3, 64).astype(np.float16))
PY

expect_exit 0 "rangeq with --target rel_l2 on f16 values near 65504" -- \
    "$GC" encode f16.h5 -o target.gcs --codec rangeq --target rel_l2=0.01
expect_exit 0 "the result decodes" -- bash -c "'$GC' inspect target.gcs --against f16.h5 --json > target.json"
worst=$(jq '[.. | objects | select(has("metrics")) | .metrics.rel_l2] | max' target.json)
if jq -n --argjson w "$worst" '$w != null and $w <= 0.01' | grep -q true; then
    pass "every tensor within rel_l2 0.01 (worst $worst)"
else
    fail "rel_l2 target missed: worst $worst"
fi
expect_exit 0 "--target bits= as well" -- "$GC" encode f16.h5 -o bits.gcs --codec rangeq --target bits=16

for ef in on off; do
    expect_exit 0 "simulate topk with error feedback $ef" -- \
        bash -c "'$GC' simulate f16.h5 --codec topk:density=0.01 --error-feedback $ef --json > sim_$ef.json"
done
steps=$(jq '.steps | length' sim_on.json)
[ "$steps" = 3 ] && pass "three steps simulated" || fail "steps: $steps"
finite=$(jq '[.steps[] | .rel_l2, .drift | numbers] | length' sim_on.json)
[ "$finite" = 6 ] && pass "every step's rel_l2 and drift are finite" || fail "$(jq -c .steps sim_on.json)"
if jq -n --slurpfile a sim_on.json --slurpfile b sim_off.json '$a[0].total.drift < $b[0].total.drift' | grep -q true; then
    pass "error feedback lowers the drift ($(jq .total.drift sim_on.json) < $(jq .total.drift sim_off.json))"
else
    fail "drift with feedback $(jq .total.drift sim_on.json), without $(jq .total.drift sim_off.json)"
fi
expect_exit 0 "simulate rangeq with error feedback" -- "$GC" simulate f16.h5 --codec rangeq:bits=4

expect_exit 0 "a sweep where one codec refuses the tensor" -- \
    bash -c "'$GC' sweep f16.h5 --codecs 'rangeq:bits=2;rangeq:bits=8;topk:density=0.1;lossless' --json > sweep.json"
expect_stderr "rangeq:bits=2"
refused=$(jq -r '.codecs[] | select(.codec == "rangeq:bits=2") | .refused' sweep.json)
case "$refused" in
    *exceeds*) pass "the refused cell says why: $refused" ;;
    *) fail "rangeq:bits=2 not marked refused: $(jq -c .codecs sweep.json)" ;;
esac
measured=$(jq '[.codecs[] | select(has("refused") | not) | select(.bits_per_value > 0)] | length' sweep.json)
[ "$measured" = 3 ] && pass "the other three codecs measured" || fail "measured: $(jq -c .codecs sweep.json)"
[ "$(jq '.values' sweep.json)" = 12480 ] && pass "all 12480 values counted" || fail "values $(jq .values sweep.json)"
expect_exit 0 "the same sweep as a table" -- bash -c "'$GC' sweep f16.h5 --codecs 'rangeq:bits=2;lossless' > sweep.txt"
grep -q '^rangeq:bits=2 .*refused: .*exceeds' sweep.txt && pass "the table marks the refused cell" \
    || fail "table: $(cat sweep.txt)"
expect_exit 0 "and as CSV" -- bash -c "'$GC' sweep f16.h5 --codecs 'rangeq:bits=2;lossless' --csv > sweep.csv"
grep -q '^"rangeq:bits=2",group,,,,,,,0$\|^"rangeq:bits=2",tensor,,,,,,,0$' sweep.csv && pass "CSV: empty figures" \
    || fail "CSV: $(cat sweep.csv)"
expect_exit 3 "a sweep where every codec refuses" -- "$GC" sweep f16.h5 --codecs 'rangeq:bits=2'
finish
