"""`import gradcodec` registers the package's HDF5 filter plugin with h5py's HDF5: fresh
interpreters with HDF5_PLUGIN_PATH unset read and write gradcodec-filtered datasets, whichever
of h5py and gradcodec they import first, and gradcodec alone does not import h5py."""
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import gradcodec

pytest.importorskip("h5py")
pytestmark = pytest.mark.skipif(gradcodec.hdf5_plugin_dir() is None,
                                reason="the package was built without the HDF5 filter plugin")


def python(code, plugin_path=None):
    """Runs code in a fresh interpreter with this test's PYTHONPATH and HDF5_PLUGIN_PATH unset
    (or naming plugin_path); (exit code, stdout, stderr)."""
    env = {k: v for k, v in os.environ.items() if k != "HDF5_PLUGIN_PATH"}
    if plugin_path is not None:
        env["HDF5_PLUGIN_PATH"] = str(plugin_path)
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True)
    return run.returncode, run.stdout, run.stderr


WRITE_READ = """
    import numpy as np
    {imports}
    from gradcodec.h5filter import FILTER_ID
    x = np.linspace(-3, 3, 2000, dtype=np.float32).reshape(40, 50)
    with h5py.File({path!r}, "w") as f:
        f.create_dataset("step/param", data=x, chunks=(10, 50), **gradcodec.h5filter("lossless"))
    with h5py.File({path!r}) as f:
        np.testing.assert_array_equal(f["step/param"][...], x)
        assert f["step/param"].id.get_create_plist().get_filter(0)[0] == FILTER_ID
    print("read back")
"""


def test_the_plugin_lies_inside_the_package():
    directory = pathlib.Path(gradcodec.hdf5_plugin_dir())
    assert directory == pathlib.Path(gradcodec.__file__).parent / "_plugins"
    assert (directory / "libH5Zgradcodec.so").is_file()


@pytest.mark.parametrize("imports", ["import gradcodec, h5py", "import h5py, gradcodec"])
def test_h5py_reads_and_writes_filtered_datasets_without_hdf5_plugin_path(imports, tmp_path):
    code, out, err = python(WRITE_READ.format(imports=imports, path=str(tmp_path / "x.h5")))
    assert code == 0, err
    assert out.strip() == "read back"


def test_the_package_plugin_comes_before_hdf5_plugin_path_and_is_added_once(tmp_path):
    code, out, err = python("""
        import gradcodec, h5py
        from gradcodec import _h5plugin
        paths = [h5py.h5pl.get(i).decode() for i in range(h5py.h5pl.size())]
        assert _h5plugin.register(h5py) and _h5plugin.register(h5py)
        again = [h5py.h5pl.get(i).decode() for i in range(h5py.h5pl.size())]
        print(paths == again, paths[0] == gradcodec.hdf5_plugin_dir(), paths[1:])
    """, plugin_path=tmp_path)
    assert code == 0, err
    assert out.strip().split(maxsplit=2) == ["True", "True", f"['{tmp_path}']"]


def test_import_gradcodec_does_not_import_h5py():
    code, out, err = python("""
        import sys, gradcodec
        print("h5py" in sys.modules)
        import h5py
        print(any(type(f).__name__ == "_H5pyFinder" for f in sys.meta_path),
              type(h5py.__spec__.loader).__name__ != "_RegisterAfter")
    """)
    assert code == 0, err
    # The finder steps aside after h5py's import and gives h5py its own loader back.
    assert out.split() == ["False", "False", "True"]


def test_without_gradcodec_h5py_cannot_read_a_filtered_dataset(tmp_path):
    path = tmp_path / "x.h5"
    assert python(WRITE_READ.format(imports="import gradcodec, h5py", path=str(path)))[0] == 0
    empty = tmp_path / "empty"  # HDF5's default plugin directory left out
    empty.mkdir()
    code, _, err = python(f"""
        import h5py
        h5py.File({str(path)!r})["step/param"][...]
    """, plugin_path=empty)
    assert code != 0 and "filter" in err.lower()


def test_a_failed_registration_warns_with_the_way_to_do_it_by_hand():
    code, out, err = python("""
        import warnings
        import h5py
        def refuse(path):
            raise RuntimeError("no plugin path here")
        h5py.h5pl.prepend = refuse
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import gradcodec
        print(len(caught), caught[0].category.__name__, caught[0].message)
    """)
    assert code == 0, err
    count, category, message = out.split(maxsplit=2)
    assert count == "1" and category == "RuntimeWarning"
    assert "no plugin path here" in message and f"HDF5_PLUGIN_PATH={gradcodec.hdf5_plugin_dir()}" in message
