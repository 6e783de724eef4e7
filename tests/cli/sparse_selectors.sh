# Every selector of the threshold-sparse codec through the CLI: it keeps about its target,
# decodes to zeros elsewhere, and inspect shows the target and the bit split.
source "$(dirname "$0")/testlib.bash"

for spec in topk:density=0.01 topk:count=100,values=f32 threshold:value=0.01 dgc:density=0.01,seed=3 \
            sidco:dist=exp,density=0.01 sidco:dist=gpareto,density=0.01,stages=2 sidco:dist=gamma,density=0.01 \
            topk:density=0.01,values=rangeq,bits=8 topk:density=0.001,values=bf16; do
    expect_exit 0 "encode with $spec" -- "$GC" encode "$SAMPLE" -o s.gcs --force --codec "$spec"
    "$GC" inspect s.gcs --against "$SAMPLE" --json > s.json
    expect_exit 0 "$spec: inspect reports kept, target and bit split, with error below the original energy" -- jq -e '
      .tensors | map(select(.name == "step_00090/c2.weight"))[0] |
      .kept > 0 and .kept < .elements and .position_bits > 0 and .value_bits > 0 and .metrics.rel_l2 < 1 and .metrics.energy_kept <= 1.0001' s.json
    expect_exit 0 "$spec: decode gives back an HDF5 file with the same tree" -- bash -c "'$GC' decode s.gcs -o s.h5 --force && diff <(h5ls -r '$SAMPLE') <(h5ls -r s.h5)"
done
"$GC" encode "$SAMPLE" -o t.gcs --force --codec topk:density=0.01
"$GC" inspect t.gcs --json > t.json
expect_exit 0 "exact top-k keeps exactly ceil(0.01 n) values of c2.weight" -- jq -e '.tensors | map(select(.name == "step_00090/c2.weight"))[0] | .kept == 185 and .target_density == 0.01' t.json
expect_exit 2 "an unknown selector key is a usage error listing the keys" -- "$GC" encode "$SAMPLE" -o u.gcs --codec topk:dens=0.1
expect_stderr "valid keys"
expect_absent u.gcs
finish
