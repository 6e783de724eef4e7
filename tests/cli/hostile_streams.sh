# Streams with valid bytes (checksums pass) but hostile content: decode and inspect never
# crash; what HDF5 can hold decodes to a readable file, the rest is refused with exit 3,
# a message naming the object, and no output.
source "$(dirname "$0")/testlib.bash"
MAKE_HOSTILE="$(dirname "$MAKE_FIXTURE")/make_hostile_streams"

mkdir streams
"$MAKE_HOSTILE" streams || fail "make_hostile_streams failed"
# A group given twice is harmless (its attributes would collide, see root-group-twice).
decodable="dot-dot-path duplicate-group group-after-child long-path rank-32 self-link zero-sized-dims
           typed-int typed-strings typed-large-sequence"
refused="dot-component group-under-external-link double-slash duplicate-attribute duplicate-tensor empty-attribute-name empty-path
         external-link-empty-file group-over-tensor link-empty-target link-over-tensor nul-in-path
         parent-is-link relative-path root-as-tensor root-group-twice tensor-under-tensor trailing-slash
         typed-truncated-type typed-bad-prefix typed-trailing-type-byte typed-garbled-type
         typed-array-rank-200 typed-array-size-mismatch typed-deep-nesting typed-reference
         typed-member-outside typed-short-data typed-long-data typed-nul-in-string
         typed-huge-sequence typed-huge-shape"
count=$(ls streams | wc -l)
listed=$(echo deep-path $decodable $refused | wc -w)
if [ "$count" -eq "$listed" ]; then pass "every hostile case is listed here"; else fail "$count streams, $listed listed"; fi

# An external link the stream made is never followed: victim.h5 is not even opened.
"$GC" encode "$SAMPLE" -o victim.gcs && "$GC" decode victim.gcs -o victim.h5
victim_before=$(sha256sum victim.h5)
# 20 tensors 2,000 groups deep (80 KB) decode in time linear in the stream: a second, not minutes.
# (h5dump itself is too slow on such a file to check it.)
SECONDS=0
expect_exit 0 "deep-path decodes" -- "$GC" decode streams/deep-path.gcs -o out.h5
if [ "$SECONDS" -lt 20 ]; then pass "deep-path decodes in ${SECONDS}s"; else fail "deep-path took ${SECONDS}s"; fi
rm -f out.h5
for name in $decodable; do
    expect_exit 0 "$name decodes" -- "$GC" decode "streams/$name.gcs" -o out.h5
    expect_exit 0 "$name gives a readable HDF5 file" -- bash -c "h5dump -H out.h5 > /dev/null"
    rm -f out.h5
done
for name in $refused; do
    expect_exit 3 "$name is refused" -- "$GC" decode "streams/$name.gcs" -o out.h5
    if grep -qE "damaged stream|twice|not a group|component|type description|typed data|over the cap" "$WORK/stderr"; then pass "$name: says why"; else fail "$name: $(cat "$WORK/stderr")"; fi
    expect_absent out.h5
    rm -f out.h5
done
if [ "$(sha256sum victim.h5)" = "$victim_before" ]; then pass "victim.h5 behind an external link is untouched"; else fail "decode wrote into victim.h5"; fi
for name in deep-path $decodable $refused; do
    "$GC" inspect "streams/$name.gcs" > /dev/null 2>"$WORK/stderr"
    rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 3 ]; then pass "inspect $name exits $rc"; else fail "inspect $name exits $rc: $(cat "$WORK/stderr")"; fi
done

# A typed record's variable-length parts count against the per-tensor cap as they are rebuilt.
expect_exit 3 "a sequence over --max-tensor-bytes is refused" -- "$GC" decode streams/typed-large-sequence.gcs -o out.h5 --max-tensor-bytes 50000
expect_stderr "--max-tensor-bytes"
expect_absent out.h5
expect_exit 3 "and its data over --max-total-bytes" -- "$GC" decode streams/typed-large-sequence.gcs -o out.h5 --max-total-bytes 50000
expect_stderr "--max-total-bytes"
expect_absent out.h5
expect_exit 3 "and its record over --max-record-bytes" -- "$GC" decode streams/typed-large-sequence.gcs -o out.h5 --max-record-bytes 50000
expect_absent out.h5

# Typed records whose real type descriptions have random bytes changed (checksums valid): each is
# decoded or refused with exit 3, never a crash, and inspect holds up the same way.
mkdir mutants
"$MAKE_HOSTILE" --mutants mutants 240 || fail "make_hostile_streams --mutants failed"
crashes=0 decoded=0
for m in mutants/*.gcs; do
    "$GC" decode "$m" -o mutant.h5 --force 2>/dev/null
    rc=$?
    [ $rc -eq 0 ] && decoded=$((decoded + 1))
    if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then crashes=$((crashes + 1)); echo "decode $m: exit $rc" >&2; fi
    "$GC" inspect "$m" > /dev/null 2>&1
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then crashes=$((crashes + 1)); echo "inspect $m: exit $rc" >&2; fi
done
if [ "$crashes" -eq 0 ]; then pass "240 mutated type descriptions: $decoded decode, the rest are refused, none crash"; else fail "$crashes crashes on mutated type descriptions"; fi

# The end record must be the last: one byte after it is refused, by decode and by inspect.
"$GC" encode "$SAMPLE" -o whole.gcs
cp whole.gcs tail.gcs && printf 'x' >> tail.gcs
expect_exit 3 "a byte after the end record is refused" -- "$GC" decode tail.gcs -o out.h5
expect_stderr "1 bytes follow the end record"
expect_absent out.h5
head -c 4000 /dev/zero > zeros.f32
"$GC" encode zeros.f32 --raw f32 --shape 1000 -o single.gcs
printf 'x' >> single.gcs
expect_exit 3 "decode --raw refuses it too" -- "$GC" decode single.gcs --raw -o out.raw
expect_absent out.raw
expect_exit 3 "inspect refuses it too" -- "$GC" inspect tail.gcs
expect_exit 3 "on a pipe too" -- bash -c "cat tail.gcs | '$GC' decode - -o out.h5"
expect_absent out.h5
finish
