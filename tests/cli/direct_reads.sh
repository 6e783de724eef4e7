# encode reads values stored as plain bytes (contiguous, unfiltered, little-endian, written) on
# the encoding threads, and everything else through HDF5. The two paths give the same stream:
# chunked, filtered, compact, big-endian and user-block copies of a dump encode to the bytes of
# the original, on one thread and on four. Values past the end of the file are refused,
# naming file and dataset, and leave no output.
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

"$HOSTILE" past-eof cut.h5 || fail "could not make a file cut short"
for threads in 1 4; do
    expect_exit 3 "values past the end of the file, -T $threads" -- "$GC" encode cut.h5 -o cut.gcs -T $threads
    expect_stderr "cut.h5: /x: its values (4000 bytes at offset"
    expect_stderr "lie past the end of the file"
    expect_absent cut.gcs
done
finish
