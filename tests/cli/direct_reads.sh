# encode reads values stored as plain bytes (contiguous, unfiltered, little-endian, written) on
# the encoding threads, and everything else through HDF5. The two paths give the same stream:
# chunked, filtered, compact, big-endian and user-block copies of a dump encode to the bytes of
# the original, on one thread and on four, and so do cast's tensors read in pieces. Values past
# the end of the file are refused, naming file and dataset, and leave no output.
source "$(dirname "$0")/testlib.bash"
HOSTILE="$(dirname "$MAKE_FIXTURE")/make_hostile_hdf5"

same_stream() {  # same_stream WHAT REFERENCE.gcs INPUT.h5 ENCODE-ARGS...
    local what="$1" reference="$2" input="$3"
    shift 3
    for threads in 1 4; do
        "$GC" encode "$input" -o copy.gcs --force -T $threads "$@" 2>stderr ||
            { fail "$what -T $threads: $(cat stderr)"; continue; }
        if cmp -s "$reference" copy.gcs; then pass "$what -T $threads: the same stream"; else fail "$what -T $threads: the stream differs"; fi
    done
}

"$HOSTILE" byte-order le.h5 le
"$HOSTILE" byte-order be.h5 be
h5repack -l x:CHUNK=128 le.h5 chunked.h5
h5repack -l x:COMPA le.h5 compact.h5
printf 'a user block' > block.txt
h5jam -u block.txt -i le.h5 -o userblock.h5 >/dev/null
for spec in lossless rangeq:bits=8; do
    "$GC" encode le.h5 -o le.gcs --force -T 1 --codec "$spec"
    same_stream "$spec: big-endian values" le.gcs be.h5 --codec "$spec"
    same_stream "$spec: chunked storage" le.gcs chunked.h5 --codec "$spec"
    same_stream "$spec: compact storage" le.gcs compact.h5 --codec "$spec"
    same_stream "$spec: a user block before the file" le.gcs userblock.h5 --codec "$spec"
done

# A dump of many datasets, filtered (so chunked) and behind a user block.
h5repack -f GZIP=1 "$SAMPLE" gzip.h5
h5jam -u block.txt -i "$SAMPLE" -o sample_block.h5 >/dev/null
"$GC" encode "$SAMPLE" -o sample.gcs --force -T 1 --codec topk:density=0.01
same_stream "the sample dump, gzip-filtered" sample.gcs gzip.h5 --codec topk:density=0.01
same_stream "the sample dump behind a user block" sample.gcs sample_block.h5 --codec topk:density=0.01

# cast reads a tensor stored as plain bytes piece by piece (256 KiB at a time) and encodes each
# piece as it comes: three 6 MiB tensors, each many pieces, give the stream that the whole
# tensors read through HDF5 from a chunked copy give.
"$MAKE_BIG_DUMP" pieces.h5 6 3
h5repack -l CHUNK=100000 pieces.h5 pieces_chunked.h5
for spec in cast:to=bf16 cast:to=f16; do
    "$GC" encode pieces_chunked.h5 -o whole.gcs --force -T 1 --codec "$spec"
    same_stream "$spec: tensors of many pieces" whole.gcs pieces.h5 --codec "$spec"
done
# A value cast cannot carry, in the third piece of a tensor, is named by its index in the
# tensor, and nothing is written.
python3 -c "import struct; v = [0.001] * 700001; v[600000] = 1e6; open('over.f32', 'wb').write(struct.pack('<700001f', *v))"
"$GC" encode over.f32 --raw f32 --shape 700001 -o over.gcs --force --codec lossless
"$GC" decode over.gcs -o over.h5 --force
for threads in 1 4; do
    expect_exit 3 "an f16 overflow in a later piece, -T $threads" -- "$GC" encode over.h5 -o over_f16.gcs -T $threads --codec cast:to=f16
    expect_stderr "over.h5: data: element 600000 = 1000000.000000 is outside the finite range of f16"
    expect_absent over_f16.gcs
done

"$HOSTILE" past-eof cut.h5 || fail "could not make a file cut short"
for threads in 1 4; do
    expect_exit 3 "values past the end of the file, -T $threads" -- "$GC" encode cut.h5 -o cut.gcs -T $threads
    expect_stderr "cut.h5: /x: its values (4000 bytes at offset"
    expect_stderr "lie past the end of the file"
    expect_absent cut.gcs
done
finish
