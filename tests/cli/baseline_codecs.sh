# The comparison baselines through the CLI: every one encodes the sample and decodes back to
# the same tree; a seed makes the stream reproducible; simulate shows error feedback at work on
# the biased ones; --target reaches their knobs (randomk's density, qsgd's levels, lowrank's
# rank) and records a seed so that the written stream is the one measured.
source "$(dirname "$0")/testlib.bash"

for spec in randomk:density=0.01 randomk:density=0.1,scale=unbiased,values=f32 qsgd qsgd:levels=2,bucket=64 \
            terngrad sign sign:scale=none onebit:bucket=128 natural lowrank lowrank:rank=2,values=f32,fallback=cast; do
    expect_exit 0 "encode with $spec" -- "$GC" encode "$SAMPLE" -o s.gcs --force --codec "$spec"
    expect_exit 0 "$spec: decode gives back an HDF5 file with the same tree" -- bash -c "'$GC' decode s.gcs -o s.h5 --force && diff <(h5ls -r '$SAMPLE') <(h5ls -r s.h5)"
    expect_exit 0 "$spec: inspect --against measures it" -- bash -c "'$GC' inspect s.gcs --against '$SAMPLE' --json | jq -e '.total.metrics.rel_l2 >= 0 and .total.bits_per_value > 0'"
done

"$GC" encode "$SAMPLE" -o a.gcs --force --codec qsgd:levels=4,seed=9
"$GC" encode "$SAMPLE" -o b.gcs --force --codec qsgd:levels=4,seed=9
"$GC" encode "$SAMPLE" -o c.gcs --force --codec qsgd:levels=4
"$GC" encode "$SAMPLE" -o d.gcs --force --codec qsgd:levels=4
expect_exit 0 "a seed makes the stream reproducible" -- cmp -s a.gcs b.gcs
expect_exit 1 "without a seed every record draws a fresh one" -- cmp -s c.gcs d.gcs

drift() {
    "$GC" simulate "$SAMPLE" --codec "$1" --error-feedback "$2" --json | jq '.steps[-1].drift'
}
for spec in sign:scale=none sign onebit randomk:density=0.1,seed=1; do
    on=$(drift "$spec" on)
    off=$(drift "$spec" off)
    expect_exit 0 "$spec: error feedback lowers the drift over the steps ($on against $off)" -- \
        jq -n --argjson on "$on" --argjson off "$off" -e '$on < $off'
done

expect_exit 0 "--target rel_l2 picks lowrank's rank and records a seed" -- bash -c \
    "'$GC' encode '$SAMPLE' -o t.gcs --force --codec lowrank --target rel_l2=0.3 --select 'step_00090/c2.weight' 2> t.err && '$GC' inspect t.gcs --json | jq -e '.tensors[] | select(.name == \"step_00090/c2.weight\") | .codec | test(\"^lowrank:\") and test(\"rank=[0-9]+\") and test(\"seed=[0-9]+\")'"
expect_exit 0 "the rank it picked meets the target" -- bash -c \
    "'$GC' inspect t.gcs --against '$SAMPLE' --json | jq -e '.total.metrics.rel_l2 <= 0.3'"
expect_exit 0 "--target bits picks qsgd's levels within the budget" -- bash -c \
    "'$GC' encode '$SAMPLE' -o q.gcs --force --codec qsgd --target bits=1.5 --select 'step_00090/c2.weight' 2> q.err && '$GC' inspect q.gcs --json | jq -e '.tensors[] | select(.name == \"step_00090/c2.weight\") | (.codec | test(\"^qsgd:.*levels=[0-9]+\")) and .bits_per_value <= 1.5'"
expect_exit 0 "--target rel_l2 sets randomk's density" -- bash -c \
    "'$GC' encode '$SAMPLE' -o r.gcs --force --codec randomk --target rel_l2=0.5 --select 'step_00090/c2.weight' 2> r.err && '$GC' inspect r.gcs --against '$SAMPLE' --json | jq -e '.total.metrics.rel_l2 <= 0.5'"
expect_exit 2 "--target with a knob the spec fixes is a usage error" -- "$GC" encode "$SAMPLE" -o u.gcs --codec lowrank:rank=2 --target rel_l2=0.3
expect_stderr "rank="
expect_absent u.gcs
expect_exit 2 "lowrank's fallback cannot be lowrank" -- "$GC" encode "$SAMPLE" -o u.gcs --codec lowrank:fallback=lowrank
expect_absent u.gcs
finish
