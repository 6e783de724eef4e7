"""`pip install .` as a user runs it, then h5py reading gradcodec-filtered files with nothing but
`import gradcodec`: no HDF5_PLUGIN_PATH, no build tree on PYTHONPATH.

usage: pip_install_test.py SOURCE_DIR WORK_DIR [GRADCODEC_CLI]

The source is copied to WORK_DIR/src (without its build directories) and installed with
`pip install --no-build-isolation --no-deps --no-index --target WORK_DIR/site`, offline. Then,
in fresh interpreters whose PYTHONPATH names only WORK_DIR/site:
- the installed package holds the compiled module and gradcodec/_plugins/libH5Zgradcodec.so;
- `import gradcodec` leaves h5py unimported;
- h5py reads files repacked by the CLI (lossless and rangeq:bits=8), each dataset equal to what
  the installed read_stream decodes of the CLI's stream of the same file and codec (lossless:
  the sample's values), and a file written through gradcodec.h5filter, with HDF5_PLUGIN_PATH
  unset, and also with it naming an empty directory; h5py imported before gradcodec works too;
- without `import gradcodec` the same read fails (the registration is what makes it work).

WORK_DIR stays the same between runs, so a compiler launcher (CMAKE_CXX_COMPILER_LAUNCHER,
ccache, which ctest passes through from the build) finds its cached objects. Prints the time
pip took.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap
import time

source, work = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
cli = pathlib.Path(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] else None
SAMPLE = source / "samples" / "cnn_digits.h5"


def ok(what):
    print("ok:", what, flush=True)


def copy_source():
    """The source tree without its build outputs (build*/ at the root, .git, caches)."""
    def ignored(directory, names):
        top = pathlib.Path(directory) == source
        return {n for n in names if n in (".git", "__pycache__", ".cache")
                or (top and (n.startswith("build") or n == "out"))}

    shutil.copytree(source, work / "src", ignore=ignored, symlinks=True)


def pip_install():
    env = dict(os.environ)
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    env.pop("PYTHONPATH", None)  # pip and setuptools: the interpreter's own
    command = [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
               "--disable-pip-version-check", "--no-cache-dir", "--verbose", "--target", str(work / "site"),
               str(work / "src")]
    started = time.monotonic()
    run = subprocess.run(command, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - started
    log = work / "pip.log"  # the build's whole output, compiler warnings included
    log.write_text(run.stdout + run.stderr)
    if run.returncode != 0:
        print(run.stdout[-20000:], run.stderr[-20000:], sep="\n", file=sys.stderr)
        raise SystemExit(f"pip install failed with exit code {run.returncode} (its output: {log})")
    # The compiler's, the linker's and CMake's warnings (not setuptools' notes).
    warnings = [line for line in log.read_text().splitlines()
                if re.search(r"\S:\d+(:\d+)?: warning:|(ld|lto-wrapper): warning|CMake Warning", line)]
    assert not warnings, "the build warned:\n" + "\n".join(warnings[:20])
    launcher = env.get("CMAKE_CXX_COMPILER_LAUNCHER", "no compiler launcher")
    ok(f"pip install --target took {seconds:.1f} s ({launcher}, "
       f"CMAKE_BUILD_PARALLEL_LEVEL={env['CMAKE_BUILD_PARALLEL_LEVEL']})")


def installed_files():
    package = work / "site" / "gradcodec"
    modules = list(package.glob("_gradcodec*.so"))
    assert len(modules) == 1, f"no single compiled module in {package}: {sorted(os.listdir(package))}"
    assert (package / "_plugins" / "libH5Zgradcodec.so").is_file(), f"no plugin in {package}/_plugins"
    assert (package / "__init__.py").is_file() and (package / "torch.py").is_file()
    assert list((work / "site").glob("gradcodec-*.dist-info")), "pip recorded no gradcodec dist-info"
    ok("the install holds gradcodec/, its _gradcodec module, _plugins/libH5Zgradcodec.so and the dist-info")


def python(code, plugin_path=None, expect_failure=False):
    """Runs `code` in a fresh interpreter that sees only the install; HDF5_PLUGIN_PATH unset
    unless plugin_path names one. Returns its stdout (its stderr where failure is expected)."""
    env = {k: v for k, v in os.environ.items() if k not in ("HDF5_PLUGIN_PATH", "PYTHONPATH")}
    env["PYTHONPATH"] = str(work / "site")
    if plugin_path is not None:
        env["HDF5_PLUGIN_PATH"] = str(plugin_path)
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                         cwd=work)
    if expect_failure:
        assert run.returncode != 0, f"expected a failure, got:\n{run.stdout}"
        return run.stderr
    assert run.returncode == 0, f"exit code {run.returncode}:\n{run.stdout}\n{run.stderr}"
    return run.stdout


# Reads every tensor of the CLI's stream of the sample with the installed package's
# read_stream, and the dataset of the same name in the repacked file with h5py: they must be
# equal, the dataset filtered by gradcodec (and, lossless, equal to the sample's).
COMPARE = """
    import numpy as np
    {imports}
    from gradcodec.h5filter import FILTER_ID
    checked = 0
    with h5py.File({sample!r}) as original, h5py.File({path!r}) as repacked:
        for name, values, _ in gradcodec.read_stream({stream!r}):
            np.testing.assert_array_equal(repacked[name][...], values, err_msg=name)
            if {exact}:
                np.testing.assert_array_equal(values, original[name][...], err_msg=name)
            filters = repacked[name].id.get_create_plist()
            assert any(filters.get_filter(i)[0] == FILTER_ID for i in range(filters.get_nfilters())), name
            checked += 1
    assert checked, "no dataset compared"
    print(checked)
"""


def compare(path, stream, exact, imports, plugin_path=None):
    return int(python(COMPARE.format(imports=imports, sample=str(SAMPLE), path=str(path), stream=str(stream),
                                     exact=exact), plugin_path).split()[-1])


def repacked_by_cli():
    """{codec: (the sample repacked with it, the sample encoded with it as a stream)}."""
    files = {}
    for codec in ("lossless", "rangeq:bits=8"):
        stem = work / codec.split(":")[0]
        subprocess.run([str(cli), "repack", str(SAMPLE), "-o", f"{stem}.h5", "--codec", codec, "--quiet"],
                       check=True)
        subprocess.run([str(cli), "encode", str(SAMPLE), "-o", f"{stem}.gcs", "--codec", codec, "--quiet"],
                       check=True)
        files[codec] = (pathlib.Path(f"{stem}.h5"), pathlib.Path(f"{stem}.gcs"))
    return files


def written_by_python():
    path = work / "python-written.h5"
    python(f"""
        import numpy as np, h5py, gradcodec
        x = np.linspace(-1, 1, 4096, dtype=np.float32).reshape(64, 64)
        with h5py.File({str(path)!r}, "w") as f:
            f.create_dataset("step/param", data=x, chunks=(16, 64), **gradcodec.h5filter("lossless"))
    """)
    python(f"""
        import numpy as np, gradcodec, h5py
        x = np.linspace(-1, 1, 4096, dtype=np.float32).reshape(64, 64)
        np.testing.assert_array_equal(h5py.File({str(path)!r})["step/param"][...], x)
    """)
    ok("h5py writes and reads back a dataset through gradcodec.h5filter, no HDF5_PLUGIN_PATH")
    return path


def main():
    global FILTER_ID
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    copy_source()
    pip_install()
    installed_files()
    FILTER_ID = int(python("from gradcodec.h5filter import FILTER_ID; print(FILTER_ID)"))

    untouched = python("""
        import sys, gradcodec
        print("h5py" in sys.modules, gradcodec.hdf5_plugin_dir())
    """).split()
    assert untouched[0] == "False", "import gradcodec imported h5py"
    assert pathlib.Path(untouched[1]) == work / "site" / "gradcodec" / "_plugins", untouched
    ok("import gradcodec imports no h5py, and names its plugin directory inside the install")

    empty = work / "no-plugins"
    empty.mkdir()
    python_file = written_by_python()
    if cli is None:
        print("skipped: the CLI's repacked files (no gradcodec CLI built)")
        files = {}
    else:
        files = repacked_by_cli()
    for codec, (path, stream) in files.items():
        exact = codec == "lossless"
        count = compare(path, stream, exact, "import gradcodec, h5py")
        assert compare(path, stream, exact, "import h5py, gradcodec") == count
        assert compare(path, stream, exact, "import gradcodec, h5py", plugin_path=empty) == count
        ok(f"h5py reads the {count} datasets `gradcodec repack --codec {codec}` wrote as read_stream decodes "
           "`gradcodec encode`'s stream, HDF5_PLUGIN_PATH unset or naming an empty directory, gradcodec imported "
           "before or after h5py")

    # The control: the same reads without `import gradcodec` find no filter.
    for path in [python_file, *(h5 for h5, _ in files.values())]:
        failed = python(f"""
            import h5py
            with h5py.File({str(path)!r}) as f:
                f.visititems(lambda name, item: item[...] if hasattr(item, "dtype") else None)
        """, plugin_path=empty, expect_failure=True)
        assert "filter" in failed.lower(), failed[-2000:]
    ok("without import gradcodec, h5py cannot read those files (the plugin is found through the package)")


FILTER_ID = None
main()
