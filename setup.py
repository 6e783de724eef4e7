"""`pip install .` for the gradcodec Python package: CMake builds the compiled module and the
HDF5 filter plugin, setuptools packages them with python/gradcodec.

    pip install . --no-build-isolation       # offline, with Debian's setuptools and wheel

The CMake build is a lean one: the library, the module _gradcodec and libH5Zgradcodec.so (into
gradcodec/_plugins/, where `import gradcodec` points h5py's HDF5 at it); no CLI, tests,
benchmarks or CUDA. It is configured in build-pip/ (setuptools' build_temp), so a second
install rebuilds only what changed. The environment steers it as it steers CMake:
CMAKE_BUILD_PARALLEL_LEVEL (jobs; default: every CPU), CMAKE_CXX_COMPILER_LAUNCHER and
CMAKE_C_COMPILER_LAUNCHER (ccache), CMAKE_BUILD_TYPE (default: Release at -O2, no debug
information, no LTO) and CMAKE_ARGS (more -D options, split as a shell would).
"""

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
PLUGIN = "libH5Zgradcodec.so"


def project_version():
    """The version of project() in CMakeLists.txt, the one the library reports."""
    text = (ROOT / "CMakeLists.txt").read_text()
    found = re.search(r"project\(gradcodec\s+VERSION\s+([0-9.]+)", text)
    if not found:
        raise RuntimeError("CMakeLists.txt: no `project(gradcodec VERSION x.y.z ...)` to take the version from")
    return found.group(1)


class CMakeExtension(Extension):
    """The compiled module, built by the CMake project at the repository root."""

    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        cmake = shutil.which("cmake")
        if cmake is None:
            raise RuntimeError("building gradcodec needs cmake (apt-get install cmake) on PATH")
        build = pathlib.Path(self.build_temp).resolve() / "cmake"
        build.mkdir(parents=True, exist_ok=True)
        configure = [cmake, "-S", str(ROOT), "-B", str(build), f"-DPython_EXECUTABLE={sys.executable}"]
        if "CMAKE_BUILD_TYPE" in os.environ:
            configure.append(f"-DCMAKE_BUILD_TYPE={os.environ['CMAKE_BUILD_TYPE']}")
        else:
            # Release at -O2, the optimisation of the RelWithDebInfo build the project tests (GCC 12's
            # -O3 warns falsely in libstdc++'s string concatenation), without debug information;
            # and no LTO, which pybind11 would add to a Release module.
            configure += ["-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG",
                          "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG", "-DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF"]
        configure += [
            "-DGRADCODEC_PYTHON=ON", "-DGRADCODEC_H5Z=ON",
            "-DGRADCODEC_BUILD_CLI=OFF", "-DGRADCODEC_BUILD_TESTS=OFF", "-DGRADCODEC_BUILD_BENCH=OFF",
            "-DGRADCODEC_CUDA=OFF", "-DGRADCODEC_INSTALL=OFF",
        ]
        try:  # pybind11's CMake files, wherever this interpreter's pybind11 keeps them
            import pybind11
            configure.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass
        configure += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)

        command = [cmake, "--build", str(build), "--target", "gradcodec_python"]
        if "CMAKE_BUILD_PARALLEL_LEVEL" not in os.environ:
            command += ["--parallel", str(self.parallel or os.cpu_count() or 1)]
        subprocess.run(command, check=True)

        # The build tree's package directory holds the module and, in _plugins/, the plugin.
        package = build / "python" / "gradcodec"
        module = sorted(package.glob("_gradcodec*.so"))
        plugin = package / "_plugins" / PLUGIN
        if len(module) != 1 or not plugin.is_file():
            raise RuntimeError(f"the CMake build left no _gradcodec module or {PLUGIN} in {package}")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(module[0], target)
        plugins = target.parent / "_plugins"
        plugins.mkdir(exist_ok=True)
        shutil.copyfile(plugin, plugins / PLUGIN)

    def get_outputs(self):
        return super().get_outputs() + [
            os.path.join(os.path.dirname(self.get_ext_fullpath(ext.name)), "_plugins", PLUGIN)
            for ext in self.extensions]


# setuptools' build and egg-info directories, out of the source tree's build/ (CMake's).
os.makedirs("build-pip", exist_ok=True)
setup(
    version=project_version(),
    packages=["gradcodec"],
    package_dir={"": "python"},
    ext_modules=[CMakeExtension("gradcodec._gradcodec")],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": "build-pip"}, "egg_info": {"egg_base": "build-pip"}},
    zip_safe=False,
)
