# --threads changes speed only: -T 1 and -T 4 write byte-identical streams for every codec (a
# 17 MiB tensor split inside the codec, 200 small ones encoded side by side, and the sample
# dump) and for planned encodes (--scope group, --target), which do start threads; decode,
# inspect, fit and sweep give the same results.
source "$(dirname "$0")/testlib.bash"

"$MAKE_BIG_DUMP" big.h5 17
h5dump -d /big.weight -b LE -o big.f32 big.h5 >/dev/null
SPECS="lossless cast:to=f16 cast:to=bf16 rangeq:bits=8 rangeq:bits=12 topk:density=0.001
       threshold:value=0.001 dgc:density=0.01 sidco:dist=gamma,density=0.01 fft:density=0.1 dct:density=0.1"
for spec in $SPECS; do
    for input in big.h5 "$SAMPLE"; do
        "$GC" encode "$input" -o one.gcs --codec "$spec" -T 1 --force 2>stderr || fail "$spec -T 1: $(cat stderr)"
        "$GC" encode "$input" -o four.gcs --codec "$spec" --threads 4 --force 2>stderr || fail "$spec -T 4: $(cat stderr)"
        if cmp -s one.gcs four.gcs; then pass "$spec on $(basename "$input"): -T 1 and -T 4 streams identical"; else fail "$spec on $(basename "$input"): streams differ"; fi
    done
    "$GC" encode big.f32 --raw f32 --shape 4456448 -o raw1.gcs --codec "$spec" -T 1 --force
    "$GC" encode big.f32 --raw f32 --shape 4456448 -o raw4.gcs --codec "$spec" -T 4 --force
    if cmp -s raw1.gcs raw4.gcs; then pass "$spec on raw input: streams identical"; else fail "$spec on raw input: streams differ"; fi
    "$GC" decode raw1.gcs --raw -o back1.f32 -T 1 --force
    "$GC" decode raw1.gcs --raw -o back4.f32 -T 4 --force
    if cmp -s back1.f32 back4.f32; then pass "$spec: raw decode identical"; else fail "$spec: raw decode differs"; fi
done

"$GC" encode big.h5 -o big.gcs --codec rangeq:bits=8 -T 1 --force
expect_exit 0 "decode on one thread" -- "$GC" decode big.gcs -o one.h5 -T 1
expect_exit 0 "decode on four threads" -- "$GC" decode big.gcs -o four.h5 -T 4
expect_exit 0 "the two decoded dumps hold the same values" -- h5diff one.h5 four.h5
"$GC" inspect big.gcs --against big.h5 --json -T 1 > one.json
"$GC" inspect big.gcs --against big.h5 --json -T 4 > four.json
if cmp -s one.json four.json; then pass "inspect --against: the same report"; else fail "inspect reports differ"; fi
"$GC" fit "$SAMPLE" --json -T 1 > one.json
"$GC" fit "$SAMPLE" --json -T 4 > four.json
if cmp -s one.json four.json; then pass "fit: the same report"; else fail "fit reports differ"; fi

# sweep runs its codecs side by side: every column but the speeds is the same on four threads.
SWEEP_CODECS="lossless;cast:to=bf16;rangeq:bits=8;topk:density=0.01;dgc:density=0.01;fft:density=0.1"
for scope in group tensor; do
    "$GC" sweep "$SAMPLE" --codecs "$SWEEP_CODECS" --scope $scope --csv -T 1 | cut -d, -f1-6,9 > one.csv
    "$GC" sweep "$SAMPLE" --codecs "$SWEEP_CODECS" --scope $scope --csv --threads 4 | cut -d, -f1-6,9 > four.csv
    if [ "$(wc -l < one.csv)" = 7 ] && cmp -s one.csv four.csv; then pass "sweep --scope $scope: -T 1 and -T 4 rows identical"; else fail "sweep --scope $scope rows differ: $(diff one.csv four.csv)"; fi
done

# The last tensor of a dump, started once the walk is over, is split inside the codec across
# every thread (none is left idle waiting for it): three 6 MiB tensors, the last one several
# pieces for every codec, give the same stream on two threads as on one.
"$MAKE_BIG_DUMP" tail_source.h5 6 3
for name in big.weight big_1.weight big_2.weight; do h5copy -i tail_source.h5 -o tail.h5 -s "/$name" -d "/$name"; done
for spec in $SPECS; do
    "$GC" encode tail.h5 -o one.gcs --codec "$spec" -T 1 --force
    "$GC" encode tail.h5 -o two.gcs --codec "$spec" -T 2 --force
    if cmp -s one.gcs two.gcs; then pass "$spec, last tensor split: -T 1 and -T 2 streams identical"; else fail "$spec, last tensor split: streams differ"; fi
done

# Planned encodes use the threads too: a step's cut (--scope group) is planned and each of its
# tensors encoded with every thread, a --target's candidates are measured so, and tensors
# searched on their own (--target at tensor scope, abs=) go side by side. The bytes are the
# same on one thread and on four. step_0 holds three 6 MiB tensors.
for name in big.weight big_1.weight big_2.weight; do
    h5copy -p -i tail_source.h5 -o steps.h5 -s "/$name" -d "/step_0/$name"
done
PLANNED=("--codec topk:density=0.01 --scope group" "--codec dgc:density=0.01 --scope group"
         "--codec dct:density=0.1 --scope group" "--codec topk --scope group --target bits=1"
         "--codec rangeq --target rel_l2=0.01"
         "--codec rangeq --scope group --target rel_l2=0.01" "--codec rangeq --target abs=1e-3")
for planned in "${PLANNED[@]}"; do
    for input in steps.h5 "$SAMPLE"; do
        # shellcheck disable=SC2086  # the words of $planned are separate flags
        "$GC" encode "$input" -o one.gcs $planned -T 1 --force --quiet 2>stderr || fail "$planned -T 1: $(cat stderr)"
        # shellcheck disable=SC2086
        "$GC" encode "$input" -o four.gcs $planned -T 4 --force --quiet 2>stderr || fail "$planned -T 4: $(cat stderr)"
        if cmp -s one.gcs four.gcs; then pass "$planned on $(basename "$input"): -T 1 and -T 4 streams identical"; else fail "$planned on $(basename "$input"): streams differ"; fi
    done
done
# A density searched tensor by tensor (the sample's all-zero biases meet no rel_l2, so the big
# tensors only).
"$GC" encode steps.h5 -o one.gcs --codec topk --target rel_l2=0.5 -T 1 --force --quiet
"$GC" encode steps.h5 -o four.gcs --codec topk --target rel_l2=0.5 -T 4 --force --quiet
if cmp -s one.gcs four.gcs; then pass "topk --target rel_l2=0.5 per tensor: -T 1 and -T 4 streams identical"; else fail "topk --target rel_l2=0.5 per tensor: streams differ"; fi
# And they really run on more than one thread: threads started (clone with CLONE_THREAD) by a
# planned encode at -T 4, none at -T 1. Beyond the one thread that writes the output back, -T 4
# starts the workers of each split tensor.
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
    for planned in "--codec topk:density=0.01 --scope group" "--codec topk --scope group --target bits=1" \
                   "--codec rangeq --target rel_l2=0.01" "--codec rangeq --target abs=1e-3"; do
        # shellcheck disable=SC2086
        strace -f -e trace=clone,clone3 -o trace1.txt "$GC" encode steps.h5 -o one.gcs $planned -T 1 --force --quiet
        # shellcheck disable=SC2086
        strace -f -e trace=clone,clone3 -o trace4.txt "$GC" encode steps.h5 -o four.gcs $planned -T 4 --force --quiet
        one=$(grep -c CLONE_THREAD trace1.txt)
        four=$(grep -c CLONE_THREAD trace4.txt)
        if [ "$one" -eq 0 ] && [ "$four" -ge 4 ]; then pass "$planned: $four threads started at -T 4, none at -T 1"; else fail "$planned: $one threads at -T 1, $four at -T 4"; fi
    done
else
    echo "skipped: strace cannot trace here; the thread count of planned encodes is unchecked"
fi

"$MAKE_FIXTURE" fixture.h5
expect_exit 0 "the fixture's every object kind round-trips on four threads" -- \
    bash -c "'$GC' encode fixture.h5 -o f.gcs -T 4 && '$GC' decode f.gcs -o f.h5 -T 4 && h5diff fixture.h5 f.h5"
expect_exit 2 "a negative thread count is a usage error" -- "$GC" encode big.h5 -o x.gcs -T -1
expect_exit 2 "a word for a thread count is a usage error" -- "$GC" encode big.h5 -o x.gcs --threads many
expect_absent x.gcs
finish
