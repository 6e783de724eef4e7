# Damaged streams are refused with exit 3, a message saying what and where, and no output file.
source "$(dirname "$0")/testlib.bash"

"$GC" encode "$SAMPLE" -o good.gcs
size=$(stat -c %s good.gcs)

head -c $((size / 2)) good.gcs > truncated.gcs
expect_exit 3 "a truncated stream is refused" -- "$GC" decode truncated.gcs -o out.h5
expect_stderr "truncated"
expect_absent out.h5

cp good.gcs flipped.gcs
printf '\x55' | dd of=flipped.gcs bs=1 seek=$((size / 3)) conv=notrunc status=none
expect_exit 3 "a flipped byte is refused" -- "$GC" decode flipped.gcs -o out.h5
expect_stderr "checksum mismatch"
expect_absent out.h5

cp good.gcs magic.gcs
printf 'PK' | dd of=magic.gcs bs=1 seek=0 conv=notrunc status=none
expect_exit 3 "a wrong magic number is refused" -- "$GC" decode magic.gcs -o out.h5
expect_stderr "wrong magic"
expect_absent out.h5

# Major version 2: refused as unsupported, naming both versions. The major is checked before the
# header checksum, because a future major may lay its header out differently.
cp good.gcs newer.gcs
printf '\x02' | dd of=newer.gcs bs=1 seek=8 conv=notrunc status=none
expect_exit 3 "a newer major version is refused" -- "$GC" decode newer.gcs -o out.h5
expect_stderr "format version 2.2"
expect_absent out.h5

expect_exit 3 "inspect refuses a truncated stream too" -- "$GC" inspect truncated.gcs
head -c 65536 /dev/zero > zeros.f32
"$GC" encode zeros.f32 --raw f32 --shape 16384 -o single.gcs
printf '\x01' | dd of=single.gcs bs=1 seek=60 conv=notrunc status=none
expect_exit 3 "decode --raw refuses a flipped single-tensor stream" -- "$GC" decode single.gcs --raw -o out.raw
expect_stderr "(data): checksum mismatch"
expect_absent out.raw
finish
