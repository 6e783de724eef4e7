# Every dataset class besides plain numbers travels losslessly in typed records: strings
# (fixed and variable, ASCII and UTF-8), compound (with nested array and variable-length
# members), enum, array, opaque with a tag, bitfield, unusual floats, variable-length
# sequences, empty and scalar datasets, and their attributes. decode rebuilds the same HDF5
# types, shapes, values and attributes; references are refused, or skipped on request.
TOOLS="$(cd "$(dirname "$0")/../tools" && pwd)"  # before testlib moves into its scratch folder
source "$(dirname "$0")/testlib.bash"

PY=""
for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c "import h5py, numpy" 2>/dev/null; then PY="$candidate"; break; fi
done
if [ -z "$PY" ]; then echo "skipped: no python3 with h5py (scripts/common.sh installs python3-h5py)"; exit 77; fi
"$PY" "$TOOLS/typed_hdf5.py" make . || fail "typed_hdf5.py make failed"

# The h5dump text of a file, without the line that names it.
dump_text() { h5dump "$1" | tail -n +2; }

expect_exit 0 "encode carries every typed dataset" -- "$GC" encode typed.h5 -o typed.gcs
expect_exit 0 "decode rebuilds them" -- "$GC" decode typed.gcs -o typed_out.h5
expect_exit 0 "h5diff finds no difference" -- h5diff typed.h5 typed_out.h5
expect_exit 0 "h5py sees the same types, shapes, values and attributes" -- "$PY" "$TOOLS/typed_hdf5.py" same typed.h5 typed_out.h5
if [ "$(dump_text typed.h5)" = "$(dump_text typed_out.h5)" ]; then pass "h5dump prints the same text"; else fail "h5dump differs: $(diff <(dump_text typed.h5) <(dump_text typed_out.h5) | head -20)"; fi
# The comparison can fail: a file missing one dataset differs.
"$PY" -c "import h5py; f = h5py.File('typed_out.h5', 'a'); del f['kinds/enum']"
expect_exit 1 "the h5py comparison notices a missing dataset" -- "$PY" "$TOOLS/typed_hdf5.py" same typed.h5 typed_out.h5

# The golden 1.1 stream rebuilds the file it was written from (format-spec/FORMAT.md, 9).
expect_exit 0 "the golden typed stream decodes" -- "$GC" decode "$SAMPLES/golden/typed-fixture.gcs" -o golden.h5
expect_exit 0 "to the file typed_hdf5.py makes" -- "$PY" "$TOOLS/typed_hdf5.py" same typed.h5 golden.h5
expect_exit 0 "and h5diff agrees" -- h5diff typed.h5 golden.h5

# Through a pipe, and at any thread count, the same stream.
expect_exit 0 "encode to a pipe and decode from it" -- bash -c "'$GC' encode typed.h5 -o - -T 3 | '$GC' decode - -o piped.h5"
expect_exit 0 "the piped result matches" -- "$PY" "$TOOLS/typed_hdf5.py" same typed.h5 piped.h5
"$GC" encode typed.h5 -o typed_t1.gcs -T 1
if cmp -s typed.gcs typed_t1.gcs; then pass "the stream does not depend on threads"; else fail "-T 1 wrote another stream"; fi

# inspect lists each typed dataset by its HDF5 class, in the table and in JSON.
expect_exit 0 "inspect lists them" -- bash -c "'$GC' inspect typed.gcs > table.txt"
for row in "meta/vlen_utf8 +hdf5 vlen string +4 +typed" "kinds/compound +hdf5 compound +3 +typed" \
           "kinds/opaque_tag +hdf5 opaque" "kinds/enum +hdf5 enum" "kinds/array +hdf5 array" \
           "meta/vlen_scalar +hdf5 vlen string +scalar" "kinds/vlen_ints +hdf5 vlen +4"; do
    if grep -qE "^$row" table.txt; then pass "inspect row: $row"; else fail "no inspect row '$row' in: $(cat table.txt)"; fi
done
expect_exit 0 "inspect --json lists them" -- bash -c "'$GC' inspect --json typed.gcs > typed.json"
expect_exit 0 "with dtype, codec, shape and element count" -- jq -e '.format_version == "1.2" and ([.tensors[] | select(.codec == "typed")] | length) == 25 and (.tensors[] | select(.name == "meta/vlen_2d") | .dtype == "hdf5 vlen string" and .shape == [2, 2] and .elements == 4)' typed.json

# fit and sweep pass them by: they are not gradients.
expect_exit 0 "fit skips typed datasets" -- bash -c "'$GC' fit typed.h5 --json > fit.json"
expect_exit 0 "fit reports the float tensor only" -- jq -e '[.tensors[].name] == ["weights"]' fit.json
expect_exit 0 "sweep skips them" -- bash -c "'$GC' sweep typed.h5 --codecs 'lossless' --json > sweep.json"

# A lossy codec applies to the floats; typed datasets stay exact.
expect_exit 0 "encode with a lossy codec" -- "$GC" encode typed.h5 -o lossy.gcs --codec topk:density=0.5
"$GC" decode lossy.gcs -o lossy.h5
expect_exit 0 "typed datasets are still exact" -- bash -c "h5diff typed.h5 lossy.h5 /meta /meta && h5diff typed.h5 lossy.h5 /kinds /kinds"

# repack carries them too.
if "$GC" repack --help > /dev/null 2>&1; then
    expect_exit 0 "repack carries typed datasets" -- "$GC" repack typed.h5 -o repacked.h5
    expect_exit 0 "unchanged" -- bash -c "h5diff typed.h5 repacked.h5 /meta /meta && h5diff typed.h5 repacked.h5 /kinds /kinds"
    expect_exit 0 "inspect of the repacked file lists them" -- bash -c "'$GC' inspect --json repacked.h5 > repacked.json"
    expect_exit 0 "as unfiltered typed rows" -- jq -e '(.tensors[] | select(.name == "meta/vlen_utf8") | .dtype == "hdf5 vlen string" and .codec == "unfiltered" and .elements == 4)' repacked.json
fi

# References point into the file: refused with a message naming the dataset, no output.
expect_exit 3 "a reference dataset is refused" -- "$GC" encode refs.h5 -o refs.gcs
expect_stderr "refs.h5: /refs: unsupported datatype (a reference type"
expect_absent refs.gcs
expect_exit 0 "--skip-unsupported turns it into a warning" -- "$GC" encode refs.h5 -o refs.gcs --skip-unsupported
expect_stderr "warning: refs.h5: /regions: unsupported datatype"
expect_exit 0 "and carries the rest" -- "$GC" decode refs.gcs -o refs_out.h5
expect_exit 0 "floats and strings intact" -- bash -c "h5diff refs.h5 refs_out.h5 /weights /weights && h5diff refs.h5 refs_out.h5 /names /names"
if grep -q refs <<<"$(h5ls refs_out.h5)"; then fail "the reference dataset was carried"; else pass "the reference datasets are left out"; fi

# Caps: variable-length data over the per-tensor cap is refused at encode too.
"$PY" -c "
import h5py
f = h5py.File('big_strings.h5', 'w')
f.create_dataset('s', data=['x' * 100000] * 4, dtype=h5py.string_dtype())
"
expect_exit 3 "strings over --max-tensor-bytes are refused" -- "$GC" encode big_strings.h5 -o big.gcs --max-tensor-bytes 200000
expect_stderr "--max-tensor-bytes"
expect_absent big.gcs
expect_exit 0 "and pass under a larger cap" -- "$GC" encode big_strings.h5 -o big.gcs --max-tensor-bytes 1000000

# A damaged type description in a stream is refused with no output and no crash.
"$GC" encode refs.h5 -o names.gcs --skip-unsupported 2>/dev/null
"$PY" - <<'EOF'
data = bytearray(open("names.gcs", "rb").read())
# The typed record's type description starts 03 00 right after its length; garble its class.
at = data.find(b"\x03\x00\x19\x01")
assert at > 0
data[at + 2] = 0x1F
open("garbled.gcs", "wb").write(data)
EOF
expect_exit 3 "a garbled record fails its checksum" -- "$GC" decode garbled.gcs -o garbled.h5
expect_stderr "checksum mismatch"
expect_absent garbled.h5
head -c 200 names.gcs > truncated.gcs
expect_exit 3 "a truncated typed record is refused" -- "$GC" decode truncated.gcs -o truncated.h5
expect_absent truncated.h5
finish
