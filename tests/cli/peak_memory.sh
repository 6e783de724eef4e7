# encode and decode work tensor by tensor: peak memory stays within 3x the largest tensor
# + 64 MiB, however many tensors the dump has and on any thread count (batches of small
# tensors are bounded in bytes); a raw tensor encoded in pieces stays far below its size.
# Measured as max RSS by GNU time.
source "$(dirname "$0")/testlib.bash"

BIG_MIB=96
"$MAKE_BIG_DUMP" big.h5 $BIG_MIB
limit_kib=$(( (3 * BIG_MIB + 64) * 1024 ))
for threads in 1 4; do
for spec in lossless cast:to=bf16; do
    /usr/bin/time -f %M -o enc.rss "$GC" encode big.h5 -o big.gcs --codec "$spec" --force -T $threads ||
        fail "$spec -T $threads: encode failed"
    /usr/bin/time -f %M -o dec.rss "$GC" decode big.gcs -o back.h5 --force -T $threads ||
        fail "$spec -T $threads: decode failed"
    for step in enc dec; do
        rss=$(tail -1 $step.rss)
        if [ "$rss" -le "$limit_kib" ]; then pass "$spec -T $threads $step peak ${rss} KiB <= ${limit_kib} KiB"; else fail "$spec -T $threads $step peak ${rss} KiB > ${limit_kib} KiB"; fi
    done
done
done
# --scope group selects across a step larger than the bound: six tensors of 32 MiB in one
# group (192 MiB) encode within 3 x 32 + 64 = 160 MiB, one tensor at a time.
"$MAKE_BIG_DUMP" step.h5 32 6
limit_kib=$(( (3 * 32 + 64) * 1024 ))
for spec in topk:density=0.001 dgc:density=0.001; do
    /usr/bin/time -f %M -o group.rss "$GC" encode step.h5 -o step.gcs --codec "$spec" --scope group --force
    rss=$(tail -1 group.rss)
    if [ "$rss" -le "$limit_kib" ]; then pass "$spec --scope group peak ${rss} KiB <= ${limit_kib} KiB"; else fail "$spec --scope group peak ${rss} KiB > ${limit_kib} KiB"; fi
done
# A raw tensor is streamed a few MiB at a time by the codecs that encode in pieces: no
# tensor-sized buffer at all, so a third of the tensor is already far above their peak.
h5dump -d /big.weight -b LE -o big.f32 big.h5 > /dev/null || fail "h5dump could not write the raw tensor"
limit_kib=$(( BIG_MIB * 1024 / 3 ))
for threads in 1 4; do
for spec in cast:to=bf16 rangeq:bits=8 topk:density=0.001; do
    /usr/bin/time -f %M -o raw.rss "$GC" encode big.f32 --raw f32 --shape $(( BIG_MIB << 18 )) \
        -o raw.gcs --codec "$spec" --force -T $threads || fail "raw $spec -T $threads: encode failed"
    rss=$(tail -1 raw.rss)
    if [ "$rss" -le "$limit_kib" ]; then pass "raw $spec -T $threads peak ${rss} KiB <= ${limit_kib} KiB"; else fail "raw $spec -T $threads peak ${rss} KiB > ${limit_kib} KiB"; fi
done
done
kept=$("$GC" inspect step.gcs --json | jq '.groups[0].kept')
[ "$kept" -gt 0 ] && pass "the step's cut kept $kept values" || fail "kept $kept"
expect_exit 0 "the big lossless round trip is exact" -- bash -c "'$GC' encode big.h5 -o l.gcs && '$GC' decode l.gcs -o l.h5 && h5diff big.h5 l.h5"
finish
