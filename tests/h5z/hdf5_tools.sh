# The HDF5 command-line tools and gradcodec repack/inspect on filtered files.
# Called as: hdf5_tools.sh GRADCODEC SAMPLES_DIR MAKE_FIXTURE PLUGIN_DIR
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/../cli/testlib.bash"
PLUGIN_DIR="$4"
ID=$(sed -n 's/^#define GRADCODEC_H5Z_FILTER_ID \([0-9]*\)$/\1/p' "$HERE/../../h5z/include/gradcodec_h5z.h")
[ -n "$ID" ] || fail "no filter ID in gradcodec_h5z.h"
with_plugin() { HDF5_PLUGIN_PATH="$PLUGIN_DIR" "$@"; }

# repack keeps the tree, attributes and links; rangeq:bits=8 reads back as decode's values.
expect_exit 0 "repack with rangeq:bits=8" -- "$GC" repack "$SAMPLE" -o rq.h5 --codec rangeq:bits=8
"$GC" encode "$SAMPLE" -o rq.gcs --codec rangeq:bits=8 -q
"$GC" decode rq.gcs -o rq_decoded.h5 -q
expect_exit 0 "every dataset of the repacked file equals gradcodec decode's" -- with_plugin h5diff rq.h5 rq_decoded.h5
expect_exit 2 "without the plugin h5diff cannot read the filtered datasets" -- env -u HDF5_PLUGIN_PATH h5diff rq.h5 rq_decoded.h5

# h5ls -v and h5dump show and read the filter.
with_plugin h5ls -v rq.h5/step_00010/fc.weight > h5ls.txt 2>&1
if grep -q "gradcodec" h5ls.txt && grep -q "Filter-0: *gradcodec-$ID" h5ls.txt; then pass "h5ls -v names the gradcodec filter"; else fail "h5ls -v: $(cat h5ls.txt)"; fi
with_plugin h5dump -d /step_00010/fc.bias rq.h5 > dump_rq.txt 2>&1
h5dump -d /step_00010/fc.bias rq_decoded.h5 > dump_dec.txt 2>&1
if diff <(sed -n '/DATA {/,$p' dump_rq.txt) <(sed -n '/DATA {/,$p' dump_dec.txt) > /dev/null && grep -q "DATA {" dump_rq.txt; then
    pass "h5dump prints the decoded values"
else
    fail "h5dump differs: $(head -30 dump_rq.txt)"
fi
with_plugin h5dump -p -H -d /step_00010/fc.weight rq.h5 > dump_p.txt 2>&1
if grep -q "FILTER_ID $ID" dump_p.txt; then pass "h5dump -p shows filter $ID"; else fail "h5dump -p: $(cat dump_p.txt)"; fi

# Size: frames against the stream's records, HDF5's metadata on top.
python_sizes=$(with_plugin "$GC" inspect rq.h5 --json)
stream_bytes=$(stat -c %s rq.gcs)
repacked_bytes=$(stat -c %s rq.h5)
original_bytes=$(stat -c %s "$SAMPLE")
raw_bytes=$("$GC" inspect rq.gcs --json | jq '.total.bytes_in')
metadata=$((original_bytes - raw_bytes))
echo "sizes: repacked $repacked_bytes, stream $stream_bytes, original $original_bytes, raw values $raw_bytes, HDF5 metadata $metadata"
if [ $((repacked_bytes * 100)) -le $(((stream_bytes + metadata) * 105)) ]; then
    pass "repacked $repacked_bytes <= 1.05 x (stream $stream_bytes + metadata $metadata)"
else
    fail "repacked $repacked_bytes > 1.05 x (stream $stream_bytes + metadata $metadata)"
fi

# inspect reads the frames of the chunks: same per-tensor statistics as the stream's.
"$GC" inspect rq.gcs --json --against "$SAMPLE" > stream.json
with_plugin "$GC" inspect rq.h5 --json --against "$SAMPLE" > repacked.json
expect_exit 0 "inspect of the repacked file has the stream's tensors, codecs, elements and metrics" -- \
    jq -e --slurpfile s stream.json '(.tensors | map({name, codec, elements, kept, bytes_in, metrics})) == ($s[0].tensors | map({name, codec, elements, kept, bytes_in, metrics}))' repacked.json
expect_exit 0 "inspect's frame bytes are the payload plus 28 bytes per frame, within the stream record's size" -- \
    jq -e --slurpfile s stream.json '[.tensors, $s[0].tensors] | transpose | all(.[0].bytes_out <= .[1].bytes_out + 28 and .[0].bytes_out > 28)' repacked.json
expect_exit 0 "inspect's total is the file's size" -- jq -e ".total.bytes_out == $repacked_bytes" repacked.json

# Every per-chunk codec: the repacked file reads back as decode's values (chunk = whole tensor).
for spec in lossless cast:to=f16 cast:to=bf16 rangeq:bits=4 topk:density=0.05 threshold:value=0.01 dgc:density=0.05 sidco:density=0.05; do
    "$GC" repack "$SAMPLE" -o r.h5 --codec "$spec" --select 'step_00010/*' -f -q
    "$GC" encode "$SAMPLE" -o r.gcs --codec "$spec" --select 'step_00010/*' -f -q
    "$GC" decode r.gcs -o r_dec.h5 -f -q
    expect_exit 0 "$spec: repacked values equal decode's" -- with_plugin h5diff r.h5 r_dec.h5
done
expect_exit 0 "unselected datasets are copied as they are" -- h5diff r.h5 "$SAMPLE" /step_00000/fc.weight /step_00000/fc.weight

# Several chunks per tensor.
expect_exit 0 "--chunk 1000 cuts the tensors" -- "$GC" repack "$SAMPLE" -o small.h5 --codec lossless --chunk 1000
expect_exit 0 "many-chunk lossless repack reads back exactly" -- with_plugin h5diff small.h5 "$SAMPLE"
with_plugin h5ls -v small.h5/step_00010/c2.weight > small_ls.txt 2>&1
if grep -q "Chunks:.*{3, 32, 3, 3}" small_ls.txt; then pass "c2.weight {64,32,3,3} is cut into {3,32,3,3} chunks"; else fail "chunks: $(cat small_ls.txt)"; fi

# --threads changes speed only: one and four threads store chunks of the same sizes and values
# (the files differ only in HDF5's object timestamps).
for spec in lossless rangeq:bits=8 topk:density=0.01; do
    "$GC" repack "$SAMPLE" -o t1.h5 --codec "$spec" --chunk 1000 -T 1 -f -q
    "$GC" repack "$SAMPLE" -o t4.h5 --codec "$spec" --chunk 1000 --threads 4 -f -q
    if [ "$(stat -c %s t1.h5)" = "$(stat -c %s t4.h5)" ]; then pass "$spec: -T 1 and -T 4 files are the same size"; else fail "$spec: -T 1 and -T 4 sizes differ"; fi
    expect_exit 0 "$spec: -T 1 and -T 4 files hold the same values" -- with_plugin h5diff t1.h5 t4.h5
    with_plugin "$GC" inspect t1.h5 --json -T 1 > t1.json
    with_plugin "$GC" inspect t4.h5 --json -T 1 > t4.json
    if cmp -s t1.json t4.json; then pass "$spec: -T 1 and -T 4 chunks have the same sizes and codecs"; else fail "$spec: inspect reports differ"; fi
done

# A damaged chunk: HDF5 reports the read failure, inspect exits 3 naming the dataset.
cp rq.h5 damaged.h5
# Chunks are written in walk order: the last frame in the file is step_00090/fc.weight's.
offset=$(LC_ALL=C grep -obUaP '\x89GCF' damaged.h5 | tail -1 | cut -d: -f1)
if [ -n "$offset" ]; then
    printf '\xff\xff\xff\xff' | dd of=damaged.h5 bs=1 seek=$((offset + 30)) conv=notrunc status=none
    expect_exit 3 "inspect of a file with a damaged chunk fails cleanly" -- with_plugin "$GC" inspect damaged.h5
    expect_stderr "step_00090/fc.weight"
    expect_exit 1 "h5dump of the damaged dataset fails" -- with_plugin h5dump -d /step_00090/fc.weight damaged.h5
    expect_exit 0 "h5dump of an undamaged dataset still reads" -- with_plugin h5dump -d /step_00090/fc.bias damaged.h5
else
    fail "no frame found in rq.h5"
fi

# h5repack applies the filter with UD=ID,flag,count,values (set_local fills the rest). It picks
# its own chunks (whole tensors, for datasets this small).
ud() {
    python3 -c '
import sys; spec = sys.argv[1].encode(); n = len(spec); spec += b"\0" * (-n % 4)
words = [1, 0, 0, 0, 0, 0, n] + [int.from_bytes(spec[i:i+4], "little") for i in range(0, len(spec), 4)]
print(",".join(map(str, [len(words)] + words)))' "$1"
}
expect_exit 0 "h5repack -f UD=$ID,0,$(ud lossless)" -- with_plugin h5repack -f "UD=$ID,0,$(ud lossless)" "$SAMPLE" h5r_lossless.h5
expect_exit 0 "h5repack's lossless output reads back exactly" -- with_plugin h5diff h5r_lossless.h5 "$SAMPLE"
expect_exit 0 "h5repack -f UD=$ID,0,$(ud rangeq:bits=8)" -- with_plugin h5repack -f "UD=$ID,0,$(ud rangeq:bits=8)" "$SAMPLE" h5r.h5
with_plugin h5ls -v h5r.h5/step_00010/fc.weight > h5r_ls.txt 2>&1
if grep -q "Filter-0: *gradcodec-$ID *{1, 3, 3," h5r_ls.txt; then pass "set_local filled codec id 3 and dtype 3 for h5repack"; else fail "h5repack: $(cat h5r_ls.txt)"; fi
expect_exit 1 "h5repack's rangeq output is lossy" -- with_plugin h5diff -q h5r.h5 "$SAMPLE"
expect_exit 0 "h5repack's rangeq output (whole-tensor chunks here too) equals gradcodec repack's" -- with_plugin h5diff h5r.h5 rq.h5
expect_exit 0 "h5repack -f NONE restores plain datasets" -- with_plugin h5repack -f NONE h5r.h5 plain.h5
expect_exit 0 "the plain copy reads without the plugin" -- env -u HDF5_PLUGIN_PATH h5dump -o /dev/null -d /step_00010/fc.weight plain.h5
expect_exit 0 "the plain copy equals the filtered file read through the plugin" -- with_plugin h5diff plain.h5 h5r.h5

# f16, bf16 and f64 datasets, integers, attributes and links (the fixture has them all).
"$MAKE_FIXTURE" fixture.h5
for spec in lossless rangeq:bits=8; do
    expect_exit 0 "$spec: repack of every dtype" -- "$GC" repack fixture.h5 -o fx.h5 --codec "$spec" -f
    "$GC" encode fixture.h5 -o fx.gcs --codec "$spec" -f -q
    "$GC" decode fx.gcs -o fx_dec.h5 -f -q
    expect_exit 0 "$spec: f16, bf16, f32, f64 datasets read back as decode's values; the rest as they were" -- \
        with_plugin h5diff fx.h5 fx_dec.h5
done
with_plugin h5ls -v fx.h5/step_00010/block.0/half > half_ls.txt 2>&1
if grep -q "Filter-0: *gradcodec-$ID *{1, 3, 1," half_ls.txt; then pass "the f16 dataset is filtered with dtype code 1"; else fail "half: $(cat half_ls.txt)"; fi

# A value the codec refuses fails the repack (exit 3) naming the dataset, and leaves no output.
"$MAKE_FIXTURE" nan.h5 --nan
expect_exit 3 "rangeq refuses NaN" -- "$GC" repack nan.h5 -o nan_rq.h5 --codec rangeq:bits=8
expect_stderr "NaN"
expect_absent nan_rq.h5
expect_exit 0 "--allow-nonfinite carries it" -- "$GC" repack nan.h5 -o nan_rq.h5 --codec rangeq:bits=8 --allow-nonfinite
"$GC" encode nan.h5 -o nan.gcs --codec rangeq:bits=8 --allow-nonfinite -q
"$GC" decode nan.gcs -o nan_dec.h5 -q
expect_exit 0 "the NaN-carrying repack reads back as decode's values" -- with_plugin h5diff -N nan_rq.h5 nan_dec.h5

# Refusals: a bad codec spec, a codec that does not run per chunk, no chunk.
expect_exit 2 "a bad codec spec is a usage error" -- "$GC" repack "$SAMPLE" -o x.h5 --codec rangeq:bits=99
expect_absent x.h5
expect_exit 2 "fft is a stream codec, not a per-chunk one" -- "$GC" repack "$SAMPLE" -o x.h5 --codec fft:density=0.1
expect_stderr "fft"
expect_exit 2 "--chunk 0 is a usage error" -- "$GC" repack "$SAMPLE" -o x.h5 --chunk 0
finish
