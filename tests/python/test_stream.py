"""Streams written from Python read back in Python and decode with the CLI."""
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import gradcodec
from conftest import SOURCE_DIR, gradient_like


def test_a_written_stream_reads_back_with_names_values_and_attributes(tmp_path, rng):
    path = tmp_path / "dump.gcs"
    fc = gradient_like(rng, (10, 32))
    conv = gradient_like(rng, (4, 1, 3, 3), np.float64)
    with gradcodec.StreamWriter(path) as writer:
        writer.write("step_00001/fc.weight", fc, attrs={"lr": 0.1, "note": "first", "dims": np.arange(3)})
        writer.write("step_00001/conv.weight", conv, codec="topk:count=5,values=f32")
    records = list(gradcodec.read_stream(path))
    assert [name for name, _, _ in records] == ["step_00001/fc.weight", "step_00001/conv.weight"]
    np.testing.assert_array_equal(records[0][1], fc)
    attrs = records[0][2]
    assert attrs["lr"] == 0.1 and attrs["note"] == "first"
    np.testing.assert_array_equal(attrs["dims"], np.arange(3))
    conv_back = records[1][1]
    assert conv_back.dtype == np.float64 and np.count_nonzero(conv_back) == 5


def test_a_failed_write_leaves_no_file(tmp_path, rng):
    path = tmp_path / "dump.gcs"
    with pytest.raises(gradcodec.BadInputError):
        with gradcodec.StreamWriter(path) as writer:
            writer.write("a", gradient_like(rng, 10))
            writer.write("b", np.array([np.nan], dtype=np.float32), codec="rangeq:bits=8")
    assert list(tmp_path.iterdir()) == []


def test_a_damaged_stream_raises_naming_the_file(tmp_path, rng):
    path = tmp_path / "dump.gcs"
    with gradcodec.StreamWriter(path) as writer:
        writer.write("a", gradient_like(rng, 1000))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(gradcodec.DamagedStreamError):
        list(gradcodec.read_stream(path))
    with pytest.raises(gradcodec.IOError, match="missing.gcs"):
        list(gradcodec.read_stream(tmp_path / "missing.gcs"))


def cli():
    build = pathlib.Path(os.environ.get("GRADCODEC_BUILD_DIR", pathlib.Path.cwd()))
    found = build / "cli" / "gradcodec"
    return found if found.exists() else shutil.which("gradcodec")


@pytest.mark.skipif(cli() is None, reason="the gradcodec CLI is not built")
def test_the_cli_decodes_a_python_stream_and_python_reads_a_cli_stream(tmp_path, rng):
    h5py = pytest.importorskip("h5py")
    written = tmp_path / "py.gcs"
    x = gradient_like(rng, (6, 7))
    with gradcodec.StreamWriter(written) as writer:
        writer.write("step_00003/w", x)
    subprocess.run([cli(), "decode", written, "-o", tmp_path / "py.h5", "--quiet"], check=True)
    with h5py.File(tmp_path / "py.h5") as f:
        np.testing.assert_array_equal(f["step_00003/w"][()], x)

    sample = SOURCE_DIR / "samples" / "cnn_digits.h5"
    subprocess.run([cli(), "encode", sample, "-o", tmp_path / "cli.gcs", "--quiet"], check=True)
    with h5py.File(sample) as f:
        count = 0
        for name, values, _ in gradcodec.read_stream(tmp_path / "cli.gcs"):
            np.testing.assert_array_equal(values, f[name][()])
            count += 1
    assert count > 0


def test_a_typed_dataset_is_passed_by_with_a_warning_naming_it():
    golden = SOURCE_DIR / "samples" / "golden" / "typed-fixture.gcs"
    with pytest.warns(UserWarning) as warned:
        records = list(gradcodec.read_stream(golden))
    messages = [str(w.message) for w in warned]
    assert any(": kinds/compound:" in m and "typed dataset" in m and str(golden) in m for m in messages)
    assert any(": meta/fixed_ascii:" in m for m in messages)
    assert len(messages) == len(set(messages))  # each skipped dataset named once
    assert all(name not in m for name, _, _ in records for m in messages)


@pytest.mark.skipif(cli() is None, reason="the gradcodec CLI is not built")
def test_read_stream_names_tensors_as_the_writer_inspect_and_the_decoded_hdf5_file_do(tmp_path, rng):
    h5py = pytest.importorskip("h5py")
    import json
    stream = tmp_path / "names.gcs"
    names = ["step_00001/fc.weight", "step_00001/block/conv.bias", "top"]
    with gradcodec.StreamWriter(stream) as writer:
        for name in names:
            writer.write(name, gradient_like(rng, 12))
        writer.write("/step_00002/fc.weight", gradient_like(rng, 12))  # an absolute name: the same tree
    read = [name for name, _, _ in gradcodec.read_stream(stream)]
    assert read == names + ["step_00002/fc.weight"]
    inspected = subprocess.run([cli(), "inspect", stream, "--json"], check=True, capture_output=True, text=True)
    assert [t["name"] for t in json.loads(inspected.stdout)["tensors"]] == read
    subprocess.run([cli(), "decode", stream, "-o", tmp_path / "names.h5", "--quiet"], check=True)
    with h5py.File(tmp_path / "names.h5") as f:
        datasets = []
        f.visititems(lambda name, item: datasets.append(name) if isinstance(item, h5py.Dataset) else None)
        assert sorted(datasets) == sorted(read)
        assert all(f[name].name == "/" + name for name in read)
