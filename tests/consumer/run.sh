#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds and runs two consumers that see
# only that prefix: a CMake project (find_package, shared and static) and a C11 program
# compiled with gcc through pkg-config. usage: run.sh BUILD_DIR WORK_DIR
set -euo pipefail
build="$1" work="$2"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
test -f "$prefix/include/gradcodec.h"
test -f "$prefix/include/gradcodec/version.h"
test -f "$prefix/lib/cmake/gradcodec/gradcodecConfig.cmake"
test -f "$prefix/lib/pkgconfig/gradcodec.pc"
ls "$prefix"/lib/libgradcodec.so.* >/dev/null
# Only the API is exported: no internal symbol of the library's stages.
exported="$(nm -D --defined-only "$prefix"/lib/libgradcodec.so)"
if grep -q 'write_sparse_payload\|ByteWriter' <<<"$exported"; then
    echo "libgradcodec.so exports internal symbols" >&2
    exit 1
fi

cmake -S "$here" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/cmake" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" "$work/cmake/consumer"
"$work/cmake/consumer_static"
# The shared consumer must load gradcodec from the prefix, not from the build tree. ldd's
# output is captured first: under pipefail, `ldd | grep -q` fails whenever grep's early exit
# cuts ldd off with SIGPIPE, however the match came out.
loaded="$(LD_LIBRARY_PATH="$prefix/lib" ldd "$work/cmake/consumer")"
if ! grep -q "$prefix/lib/libgradcodec.so" <<<"$loaded"; then
    echo "consumer loads gradcodec from elsewhere than $prefix/lib:" >&2
    echo "$loaded" >&2
    exit 1
fi

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
gcc -std=c11 -Wall -Wextra -Werror -pedantic "$here/consumer.c" -o "$work/consumer_c" \
    $(pkg-config --cflags --libs gradcodec)
LD_LIBRARY_PATH="$prefix/lib" "$work/consumer_c"
# The same program linked with the static library through `pkg-config --static`: Libs.private
# (the C++ runtime, and cudart from the directory CMake found it in when the library was built
# with GRADCODEC_CUDA) and Requires.private (zstd, FFTW) are all it needs, and every directory
# the file names exists.
static_libs="$(pkg-config --static --libs gradcodec)"
for flag in $static_libs; do
    if [[ "$flag" == -L* ]] && [ ! -d "${flag#-L}" ]; then
        echo "gradcodec.pc names a directory that does not exist: $flag" >&2
        exit 1
    fi
done
# shellcheck disable=SC2046,SC2086
gcc -std=c11 -Wall -Wextra -Werror -pedantic "$here/consumer.c" -o "$work/consumer_c_static" \
    $(pkg-config --cflags gradcodec) "$prefix/lib/libgradcodec.a" ${static_libs//-lgradcodec/}
if grep -q libgradcodec <<<"$(ldd "$work/consumer_c_static")"; then
    echo "consumer_c_static loads libgradcodec.so" >&2
    exit 1
fi
"$work/consumer_c_static"
# The Python package, where the build has it and the filter plugin, carries the plugin in
# gradcodec/_plugins/, where `import gradcodec` points h5py at it (tests/python/test_h5py_plugin.py
# checks the mechanism in the build tree).
package="$prefix/lib/python3/dist-packages/gradcodec"
if [ -d "$package" ] && [ -f "$prefix/lib/hdf5/plugin/libH5Zgradcodec.so" ]; then
    test -f "$package/_plugins/libH5Zgradcodec.so"
    test -f "$package/_h5plugin.py"
fi
# Nothing in the consumers reaches into the source tree.
if grep -n 'libcodec/src' "$here"/consumer.*; then exit 1; fi
echo "consumer: ok"
