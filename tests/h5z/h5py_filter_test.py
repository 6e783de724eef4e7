"""h5py writes datasets through gradcodec's HDF5 filter and reads them back.

Run with HDF5_PLUGIN_PATH naming the directory of libH5Zgradcodec.so and PYTHONPATH naming
python/ (ctest sets both). Each check prints what it verified; the first failure raises.
"""
import os
import re
import sys
import tempfile

import h5py
import numpy as np

import gradcodec
from gradcodec.h5filter import FILTER_ID, LAYOUT_VERSION, filter_params

rng = np.random.default_rng(7)
WORK = tempfile.mkdtemp()


def path(name):
    return os.path.join(WORK, name)


def ok(what):
    print("ok:", what)


def write_read(name, data, spec, chunks=None, **kwargs):
    with h5py.File(path(name), "w") as f:
        f.create_dataset("x", data=data, chunks=chunks or data.shape, **gradcodec.h5filter(spec, **kwargs))
    with h5py.File(path(name), "r") as f:
        return f["x"][...], f["x"].id.get_create_plist().get_filter(0)


def test_helper_packs_the_documented_layout():
    opts = filter_params("rangeq:bits=8")
    spec = b"rangeq:bits=8"
    assert opts[:7] == (1, 3, 0, 0, 0, 0, len(spec)), opts
    packed = b"".join(v.to_bytes(4, "little") for v in opts[7:])
    assert packed[: len(spec)] == spec and set(packed[len(spec):]) <= {0}, packed
    assert gradcodec.h5filter("lossless") == {"compression": FILTER_ID, "compression_opts": filter_params()}
    try:
        gradcodec.h5filter("fft:density=0.1")
        raise AssertionError("fft accepted")
    except ValueError as e:
        assert "per HDF5 chunk" in str(e)
    ok("h5filter packs version, codec id, flags, spec length and spec bytes")


def test_python_constants_match_the_c_header():
    header = open(os.environ["GRADCODEC_H5Z_HEADER"]).read()
    for name, value in (("FILTER_ID", FILTER_ID), ("LAYOUT_VERSION", LAYOUT_VERSION)):
        assert re.search(r"#define GRADCODEC_H5Z_%s %d\b" % (name, value), header), name
    ok("the Python helper's filter ID %d and layout version equal gradcodec_h5z.h's" % FILTER_ID)


def test_optional_filter_stores_a_refused_chunk_raw():
    # h5py adds custom filters as optional: a chunk the codec refuses (NaN without
    # allow_nonfinite) is stored unfiltered instead of failing the write.
    x = np.array([1.0, np.nan, 2.0], np.float32)
    y, _ = write_read("optional.h5", x, "rangeq:bits=8")
    with h5py.File(path("optional.h5"), "r") as f:
        mask = f["x"].id.get_chunk_info(0).filter_mask
    assert mask == 1 and np.array_equal(x, y, equal_nan=True), mask
    ok("h5py's optional filter stores a chunk rangeq refuses (NaN) raw, filter mask 1")


def test_lossless_roundtrip_is_exact_and_set_local_fills_parameters():
    x = rng.standard_normal((64, 100)).astype(np.float32)
    y, (fid, _, cd, name) = write_read("lossless.h5", x, "lossless")
    assert np.array_equal(x, y)
    assert fid == FILTER_ID and name == b"gradcodec", (fid, name)
    assert cd[1] == 1 and cd[2] == 3 and cd[3] == x.size and cd[4] == 0, cd
    ok("lossless f32 comes back bit-exact; set_local filled codec id 1, dtype 3, count %d" % x.size)


def test_float_dtypes():
    for dtype, code in ((np.float16, 1), (np.float64, 4)):
        x = rng.standard_normal(1000).astype(dtype)
        y, (_, _, cd, _) = write_read("dtype.h5", x, "lossless")
        assert y.dtype == dtype and np.array_equal(x, y) and cd[2] == code, (dtype, cd)
    ok("f16 and f64 datasets round-trip lossless with their dtype codes")


def test_cast():
    x = rng.standard_normal(4096).astype(np.float32)
    y, _ = write_read("cast.h5", x, "cast:to=f16")
    assert np.array_equal(y, x.astype(np.float16).astype(np.float32))
    y, _ = write_read("bf16.h5", x, "cast:to=bf16")
    rel = np.abs(y - x) / np.abs(x)
    assert rel.max() <= 2.0**-8 and not np.array_equal(x, y), rel.max()
    ok("cast:to=f16 equals numpy's rounding; cast:to=bf16 within 2^-8 relative")


def test_rangeq():
    x = rng.standard_normal(10000).astype(np.float32)
    y, (_, _, cd, _) = write_read("rangeq.h5", x, "rangeq:bits=8")
    err = np.linalg.norm(x - y) / np.linalg.norm(x)
    assert 0 < err < 0.05 and cd[1] == 3, (err, cd)
    with h5py.File(path("rangeq.h5"), "r") as f:
        stored = f["x"].id.get_storage_size()
    assert stored < x.nbytes / 3, stored
    ok("rangeq:bits=8: rel_l2 %.4f, %d stored bytes for %d raw" % (err, stored, x.nbytes))


def kept_per_chunk(y, rows):
    return [int(np.count_nonzero(y[i : i + rows])) for i in range(0, y.shape[0], rows)]


def test_sparse_codecs_select_per_chunk():
    x = rng.standard_normal((1000, 64)).astype(np.float32)
    y, _ = write_read("topk.h5", x, "topk:density=0.1,values=f32", chunks=(100, 64))
    with h5py.File(path("topk.h5"), "r") as f:
        assert f["x"].id.get_num_chunks() == 10
    assert kept_per_chunk(y, 100) == [640] * 10, kept_per_chunk(y, 100)
    kept = y != 0
    assert np.array_equal(y[kept], x[kept])
    for i in range(0, 1000, 100):
        chunk, kept_chunk = np.abs(x[i : i + 100]), kept[i : i + 100]
        assert chunk[kept_chunk].min() >= chunk[~kept_chunk].max()
    ok("topk over 10 chunks keeps the 640 largest of each chunk, values exact")

    y, _ = write_read("threshold.h5", x, "threshold:value=2,values=f32", chunks=(100, 64))
    assert np.array_equal(y, np.where(np.abs(x) > 2, x, 0))
    ok("threshold:value=2 keeps exactly |x| > 2")

    for spec in ("dgc:density=0.05", "sidco:density=0.05"):
        y, _ = write_read("sel.h5", x, spec, chunks=(500, 64))
        density = np.count_nonzero(y) / y.size
        assert 0.01 < density < 0.2, (spec, density)
        kept = y != 0
        assert np.allclose(y[kept], x[kept], rtol=1e-3), spec
        ok("%s keeps density %.4f with the kept values' f16 precision" % (spec, density))


def test_edge_chunks_and_partial_reads():
    x = rng.standard_normal((250, 30)).astype(np.float32)
    y, _ = write_read("edge.h5", x, "lossless", chunks=(64, 16))
    assert np.array_equal(x, y)
    with h5py.File(path("edge.h5"), "r") as f:
        assert np.array_equal(f["x"][200:250, 20:30], x[200:, 20:])
        assert f["x"].id.get_num_chunks() == 8
    ok("8 chunks with partial edge chunks read back whole and by slices")


def test_integers_take_lossless_only():
    x = rng.integers(-1000, 1000, 5000).astype(np.int32)
    y, (_, _, cd, _) = write_read("int.h5", x, "lossless")
    assert np.array_equal(x, y) and cd[2] == 18, cd
    try:
        write_read("int_rq.h5", x, "rangeq:bits=8")
        raise AssertionError("rangeq on int32 was accepted")
    except (ValueError, OSError):
        pass
    ok("int32 round-trips lossless; rangeq on int32 is refused at creation")


def test_bad_spec_is_refused_at_creation():
    x = np.ones(10, np.float32)
    for spec in ("rangeq:bits=99", "topk:nonsense=1"):
        try:
            write_read("bad.h5", x, spec)
            raise AssertionError(spec + " accepted")
        except (ValueError, OSError):
            pass
    ok("bad codec keys are refused when the dataset is created")


def test_damaged_chunk_fails_the_read():
    x = rng.standard_normal((4, 1000)).astype(np.float32)
    with h5py.File(path("damaged.h5"), "w") as f:
        f.create_dataset("x", data=x, chunks=(1, 1000), **gradcodec.h5filter("rangeq:bits=8"))
    with h5py.File(path("damaged.h5"), "r") as f:
        good = f["x"][...]
        info = f["x"].id.get_chunk_info(2)
    with open(path("damaged.h5"), "r+b") as raw:
        raw.seek(info.byte_offset + info.size // 2)
        byte = raw.read(1)
        raw.seek(info.byte_offset + info.size // 2)
        raw.write(bytes([byte[0] ^ 0x10]))
    with h5py.File(path("damaged.h5"), "r") as f:
        assert np.array_equal(f["x"][0:2], good[0:2])
        assert np.array_equal(f["x"][3], good[3])
        try:
            f["x"][2]
            raise AssertionError("a damaged chunk was read")
        except OSError as e:
            assert "filter" in str(e).lower(), e
    ok("a flipped byte in chunk 2 fails its read with an HDF5 error; other chunks still read")


def test_nonfinite_needs_the_flag():
    x = np.array([1.0, np.nan, 2.0, np.inf] * 100, np.float32)
    y, (_, _, cd, _) = write_read("nan.h5", x, "rangeq:bits=8", allow_nonfinite=True)
    assert cd[5] == 1 and np.isnan(y[1]) and np.isinf(y[3]), cd
    ok("allow_nonfinite carries NaN and inf through rangeq")


if __name__ == "__main__":
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_")]
    for test in tests:
        test()
    print("all %d passed" % len(tests))
    sys.exit(0)
