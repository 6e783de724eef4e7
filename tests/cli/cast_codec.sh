# cast rounds to f16/bf16; a finite value out of range is an error naming the tensor.
source "$(dirname "$0")/testlib.bash"

"$MAKE_FIXTURE" fixture.h5
expect_exit 0 "cast:to=bf16 encodes the selected float tensors" -- "$GC" encode fixture.h5 -o b.gcs --codec cast:to=bf16 --select 'step_00010/fc*' 
"$GC" inspect b.gcs --against fixture.h5 --json > b.json
expect_exit 0 "inspect --json output is valid JSON with the documented keys" -- jq -e '.format_version == "1.2" and (.tensors | length) > 0 and (.total.bits_per_value > 0) and (.tensors[] | select(.name == "step_00010/fc.weight") | .codec == "cast:to=bf16" and .metrics.rel_l2 < 0.01 and .value_bits == 16)' b.json
"$MAKE_FIXTURE" overflow.h5 --overflow-f16
expect_exit 3 "a value beyond the f16 range is refused" -- "$GC" encode overflow.h5 -o o.gcs --codec cast:to=f16 --select 'step_00010/fc.weight'
expect_stderr "step_00010/fc.weight: element 5"
expect_absent o.gcs
expect_exit 0 "--select leaves the other tensors lossless" -- "$GC" encode overflow.h5 -o o.gcs --codec cast:to=f16 --select 'step_00010/block.0/half'
"$GC" decode o.gcs -o o.h5
expect_exit 0 "unselected tensors come back exactly" -- h5diff overflow.h5 o.h5 /step_00010/fc.weight
finish
