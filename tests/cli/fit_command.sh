# gradcodec fit: SIDCo fits per float tensor, as a table and as JSON with the documented keys.
source "$(dirname "$0")/testlib.bash"

expect_exit 0 "fit prints a table" -- bash -c "'$GC' fit '$SAMPLE' --select 'step_00090/*' > table.txt"
rows=$(grep -c '^step_00090/' table.txt)
# 8 float tensors x 3 distributions x 3 densities
if [ "$rows" -eq 72 ]; then pass "one row per tensor, distribution and density"; else fail "$rows rows: $(head -5 table.txt)"; fi
"$GC" fit "$SAMPLE" --select 'step_00090/c2.weight' --dist exp,gamma --density 0.01,0.001 --json > fit.json
expect_exit 0 "fit --json has the documented shape" -- jq -e '
  (.tensors | length) == 1 and .tensors[0].name == "step_00090/c2.weight" and .tensors[0].elements == 18432 and
  ([.tensors[0].fits[].dist] == ["exp", "gamma"]) and
  (.tensors[0].fits[0].params.scale > 0) and (.tensors[0].fits[1].params | has("shape") and has("scale")) and
  (.tensors[0].fits[] | .ks >= 0 and .ks <= 1 and (.thresholds | length) == 2) and
  (.tensors[0].fits[].thresholds[] | .threshold > 0 and .achieved > 0 and (.density == 0.01 or .density == 0.001)) and
  ([.tensors[0].topk[].density] == [0.01, 0.001]) and (.tensors[0].topk[0].threshold < .tensors[0].topk[1].threshold)' fit.json
# The top-k threshold keeps k values: at density 0.01 of 18432 values, k = 185.
expect_exit 0 "SIDCo's achieved density is near its target on a real tensor" -- jq -e '[.tensors[0].fits[].thresholds[0].achieved] | all(. > 0.006 and . < 0.016)' fit.json
expect_exit 2 "an unknown distribution is a usage error" -- "$GC" fit "$SAMPLE" --dist normal
expect_stderr "exp, gpareto, gamma"
expect_exit 2 "a density outside (0, 1] is a usage error" -- "$GC" fit "$SAMPLE" --density 0,2
expect_exit 3 "a non-HDF5 input is bad input" -- bash -c "echo hi > x.txt; '$GC' fit x.txt"
finish
