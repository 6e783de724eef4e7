# encode and decode work tensor by tensor: peak memory stays within 3x the largest tensor
# + 64 MiB, however many tensors the dump has. Measured as max RSS by GNU time.
source "$(dirname "$0")/testlib.bash"

BIG_MIB=96
"$MAKE_BIG_DUMP" big.h5 $BIG_MIB
limit_kib=$(( (3 * BIG_MIB + 64) * 1024 ))
for spec in lossless cast:to=bf16; do
    /usr/bin/time -f %M -o enc.rss "$GC" encode big.h5 -o big.gcs --codec "$spec" --force
    /usr/bin/time -f %M -o dec.rss "$GC" decode big.gcs -o back.h5 --force
    for step in enc dec; do
        rss=$(tail -1 $step.rss)
        if [ "$rss" -le "$limit_kib" ]; then pass "$spec $step peak ${rss} KiB <= ${limit_kib} KiB"; else fail "$spec $step peak ${rss} KiB > ${limit_kib} KiB"; fi
    done
done
expect_exit 0 "the big lossless round trip is exact" -- bash -c "'$GC' encode big.h5 -o l.gcs && '$GC' decode l.gcs -o l.h5 && h5diff big.h5 l.h5"
finish
