#!/usr/bin/env bash
# The optional parts (tests, benchmarks, Python, CUDA) are found quietly: configured with their
# dependencies hidden, a library-only tree skips each with one "gradcodec: <part> skipped:
# <why>" line and configures; asked for with -D...=ON, a part whose dependency is missing stops
# the configure with an error naming it. usage: optional_parts.sh CMAKE SOURCE_DIR WORK_DIR
set -euo pipefail
cmake_bin="$1" src="$2" work="$3"
rm -rf "$work"
mkdir -p "$work"
# Hidden: Catch2, Google Benchmark and pybind11 (CMAKE_DISABLE_FIND_PACKAGE_*), and nvcc, by a
# PATH of the system's directories only (/usr/local/cuda/bin and /usr/local/bin left out).
hide=(-DCMAKE_DISABLE_FIND_PACKAGE_Catch2=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
      -DCMAKE_DISABLE_FIND_PACKAGE_pybind11=ON -DGRADCODEC_BUILD_CLI=OFF)
cmake() { env -u CUDACXX -u CUDA_PATH PATH=/usr/sbin:/usr/bin:/sbin:/bin "$cmake_bin" "$@"; }
parts=(GRADCODEC_BUILD_TESTS:Catch2 GRADCODEC_BUILD_BENCH:Benchmark GRADCODEC_PYTHON:pybind11)
lines=("gradcodec: tests skipped: Catch2 not found"
       "gradcodec: benchmarks skipped: Google Benchmark not found"
       "gradcodec: Python package skipped: pybind11 not found")
# Where the system's directories hold nvcc too (Debian's nvidia-cuda-toolkit), CUDA stays found.
if ! env PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c 'command -v nvcc' >/dev/null; then
    parts+=(GRADCODEC_CUDA:nvcc)
    lines+=("gradcodec: CUDA skipped: no CUDA compiler (nvcc) found")
fi

cmake -S "$src" -B "$work/auto" "${hide[@]}" >"$work/auto.log" 2>&1 || {
    cat "$work/auto.log" >&2
    echo "configure with the optional parts' dependencies hidden failed" >&2
    exit 1
}
for line in "${lines[@]}"; do
    if [ "$(grep -c -F -- "-- $line" "$work/auto.log")" != 1 ]; then
        cat "$work/auto.log" >&2
        echo "expected the one line: $line" >&2
        exit 1
    fi
done
if grep -q -i 'warning' "$work/auto.log"; then
    cat "$work/auto.log" >&2
    echo "the skipped parts left a warning" >&2
    exit 1
fi
# Skipped means not built: no test, benchmark or Python target in the tree.
if grep -q -E 'unit_tests|bench_|_gradcodec' "$work/auto/Makefile"; then
    echo "a skipped part still has targets" >&2
    exit 1
fi

for part in "${parts[@]}"; do
    var="${part%%:*}" dep="${part#*:}"
    if cmake -S "$src" -B "$work/$var" "${hide[@]}" "-D$var=ON" >"$work/$var.log" 2>&1; then
        echo "$var=ON configured without $dep" >&2
        exit 1
    fi
    if ! grep -q "gradcodec: $var is ON, but" "$work/$var.log" || ! grep -q -i "$dep" "$work/$var.log"; then
        cat "$work/$var.log" >&2
        echo "$var=ON without $dep: expected an error naming it" >&2
        exit 1
    fi
done
echo "optional parts: ok"
