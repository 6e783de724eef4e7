# Datasets compressed by other projects' HDF5 filter plugins read through the CLI, which links
# a static libhdf5 by default: HDF5 loads Debian's LZF plugin (which links no libhdf5) and its
# Blosc plugin (which links the shared libhdf5, a second copy in the process) from its plugin
# directory, and encode carries the values losslessly into a stream that decodes to the same
# numbers. Skipped where h5py or the plugins are missing (scripts/common.sh installs them).
source "$(dirname "$0")/testlib.bash"

PLUGINS=/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins
PY=""
for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c "import h5py, numpy" 2>/dev/null; then PY="$candidate"; break; fi
done
if [ -z "$PY" ] || [ ! -f "$PLUGINS/liblzf_filter.so" ] || [ ! -f "$PLUGINS/libH5Zblosc.so" ]; then
    echo "skipped: needs python3-h5py, hdf5-plugin-lzf and hdf5-filter-plugin-blosc-serial"; exit 77
fi

# h5py writes with the plugins through its own (shared) libhdf5: filter 32000 is LZF, 32001 Blosc.
"$PY" - <<'PYTHON' || fail "writing the filtered files failed"
import h5py, numpy as np
rng = np.random.default_rng(7)
values = rng.standard_normal((300, 100)).astype(np.float32)
for name, filter_id in (("lzf", 32000), ("blosc", 32001)):
    with h5py.File(f"{name}.h5", "w") as f:
        f.create_dataset("step_0/w", data=values, compression=filter_id, chunks=(100, 100))
np.save("values.npy", values)
PYTHON

for name in lzf blosc; do
    expect_exit 0 "encode reads a dataset compressed by the $name plugin" -- \
        "$GC" encode "$name.h5" -o "$name.gcs" --codec lossless
    expect_exit 0 "and its stream decodes" -- "$GC" decode "$name.gcs" -o "$name.back.h5"
    expect_exit 0 "to the values h5py wrote" -- "$PY" -c "
import h5py, numpy as np, sys
sys.exit(0 if np.array_equal(h5py.File('$name.back.h5')['step_0/w'][...], np.load('values.npy')) else 1)"
done
finish
