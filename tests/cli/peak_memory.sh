# encode and decode work tensor by tensor: peak memory stays within 3x the largest tensor
# + 64 MiB, however many tensors the dump has and on any thread count (batches of small
# tensors are bounded in bytes). Measured as max RSS by GNU time.
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
expect_exit 0 "the big lossless round trip is exact" -- bash -c "'$GC' encode big.h5 -o l.gcs && '$GC' decode l.gcs -o l.h5 && h5diff big.h5 l.h5"
finish
