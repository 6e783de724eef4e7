# Bad HDF5 input: damaged, not HDF5, unreadable, unsupported datatypes. Each is a clear error
# naming the file, with the documented exit code (3 bad input, 4 I/O), and no output at all.
source "$(dirname "$0")/testlib.bash"

# expect_refused CODE DESCRIPTION MESSAGE -- gradcodec arguments (OUTPUT is out.gcs or out.h5)
expect_refused() {
    local code="$1" what="$2" message="$3"; shift 4
    expect_exit "$code" "$what" -- "$GC" "$@"
    expect_stderr "$message"
    # HDF5's own error stack stays silent, now that the CLI starts the library only on a
    # file's first probe: gradcodec's line is all there is.
    if [ "$(wc -l < "$WORK/stderr")" -eq 1 ]; then pass "stderr is gradcodec's one line"
    else fail "stderr holds more than gradcodec's line: $(cat "$WORK/stderr")"; fi
    expect_absent out.gcs
    expect_absent out.h5
}

size=$(stat -c %s "$SAMPLE")

# Damaged HDF5: cut short anywhere (HDF5 checks the end-of-file address in the superblock),
# or a superblock whose version byte is not one HDF5 knows.
for cut in 100 $((size / 2)) $((size - 1)); do
    head -c $cut "$SAMPLE" > cut.h5
    expect_refused 3 "an HDF5 file cut to $cut bytes is refused" "cut.h5" -- encode cut.h5 -o out.gcs
done
cp "$SAMPLE" superblock.h5
printf '\x07' | dd of=superblock.h5 bs=1 seek=8 conv=notrunc status=none
expect_refused 3 "an HDF5 file with a damaged superblock is refused" "superblock.h5: cannot open the HDF5 file" \
    -- encode superblock.h5 -o out.gcs

# Not HDF5 at all: empty, a few bytes of the signature, a gradcodec stream, random bytes.
: > empty.h5
expect_refused 3 "an empty file is not HDF5" "empty.h5: not an HDF5 file" -- encode empty.h5 -o out.gcs
head -c 7 "$SAMPLE" > signature.h5
expect_refused 3 "part of the HDF5 signature is not HDF5" "not an HDF5 file" -- encode signature.h5 -o out.gcs
"$GC" encode "$SAMPLE" -o stream.gcs
expect_refused 3 "a gradcodec stream is not an HDF5 dump" "stream.gcs: not an HDF5 file" -- encode stream.gcs -o out.gcs
head -c 4096 /dev/urandom > random.h5
expect_refused 3 "random bytes are not HDF5" "random.h5: not an HDF5 file" -- encode random.h5 -o out.gcs
expect_refused 3 "random bytes on stdin are not HDF5" "standard input is not a readable HDF5 file" \
    -- encode - -o out.gcs < random.h5
# ... nor a stream: decode refuses an HDF5 file, and random bytes.
expect_refused 3 "decode refuses an HDF5 file" "wrong magic" -- decode "$SAMPLE" -o out.h5
expect_refused 3 "decode refuses random bytes" "wrong magic" -- decode random.h5 -o out.h5

# Unreadable. The tests run as root, for whom chmod 000 changes nothing: drop to nobody
# (setpriv) so the permission check is real; a directory is unreadable for everyone.
chmod 0711 "$WORK"  # nobody must reach shared/ through the scratch directory
mkdir -m 0777 shared
cp "$SAMPLE" shared/locked.h5
cp stream.gcs shared/locked.gcs
chmod 000 shared/locked.h5 shared/locked.gcs
as_other=()
if [ "$(id -u)" -eq 0 ]; then as_other=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
if [ "$(id -u)" -ne 0 ] || command -v setpriv >/dev/null; then
    for args in "encode shared/locked.h5 -o shared/out.gcs" "decode shared/locked.gcs -o shared/out.h5" \
                "encode shared/locked.h5 --raw f32 --shape 4 -o shared/out.gcs"; do
        expect_exit 4 "an unreadable input is an I/O error: $args" -- "${as_other[@]}" "$GC" $args
        expect_stderr "Permission denied"
        expect_stderr "shared/locked"
        expect_absent shared/out.gcs
        expect_absent shared/out.h5
    done
    expect_exit 4 "inspect of an unreadable stream is an I/O error" -- "${as_other[@]}" "$GC" inspect shared/locked.gcs
    expect_stderr "Permission denied"
else
    echo "skipped: running as root without setpriv, cannot make a file unreadable"
fi
mkdir folder.h5
expect_refused 4 "a directory as HDF5 input is an I/O error" "folder.h5" -- encode folder.h5 -o out.gcs
expect_refused 4 "a directory as raw input is an I/O error" "Is a directory" \
    -- encode folder.h5 --raw f32 --shape 4 -o out.gcs
expect_refused 4 "a directory as stream input is an I/O error" "Is a directory" -- decode folder.h5 -o out.h5

# A compound dataset is carried; a reference dataset is refused, naming it and what is carried.
"$MAKE_FIXTURE" compound.h5 --compound
expect_exit 0 "a compound dataset is carried" -- "$GC" encode compound.h5 -o compound.gcs
expect_exit 0 "and rebuilt" -- "$GC" decode compound.gcs -o compound_out.h5
expect_exit 0 "exactly" -- h5diff compound.h5 compound_out.h5 /step_00010/pairs /step_00010/pairs
"$MAKE_FIXTURE" reference.h5 --reference
expect_refused 3 "a reference dataset is refused" "/step_00010/pointer: unsupported datatype (a reference type" \
    -- encode reference.h5 -o out.gcs
expect_stderr "gradcodec carries every other HDF5 datatype"
expect_refused 3 "a reference dataset is refused when writing to stdout too" "unsupported datatype" \
    -- encode reference.h5 -o - > stdout.gcs
if [ ! -s stdout.gcs ] || ! grep -q "pointer" stdout.gcs; then pass "no reference data reached stdout"; else fail "stdout got the reference data"; fi
finish
