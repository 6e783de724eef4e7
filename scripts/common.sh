# Shared by scripts/demo and scripts/test: install what is missing, then build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# What the CLI needs (scripts/demo): the compiler and CMake, and the libraries its find_package
# and pkg-config calls look for (HDF5 with h5diff, CLI11, nlohmann-json, zstd, FFTW, xxHash).
CLI_PACKAGES=(build-essential cmake pkg-config libcli11-dev libhdf5-dev hdf5-tools libfftw3-dev
              libzstd-dev libxxhash-dev nlohmann-json3-dev)
# Everything (scripts/test): the tests, benchmarks, Python package and its tests besides.
BUILD_PACKAGES=("${CLI_PACKAGES[@]}" catch2 libbenchmark-dev zstd jq time
                python3-pybind11 pybind11-dev python3-numpy python3-pytest python3-torch python3-sklearn
                python3-matplotlib python3-h5py libopenblas0-serial hdf5-plugin-lzf
                hdf5-filter-plugin-blosc-serial python3-pip python3-setuptools python3-wheel strace)

# Installs the given Debian packages that are not installed yet; nothing to do on a second run.
ensure_packages() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "installing: ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}

# Configures once and builds incrementally afterwards. $1: build dir, rest: extra cmake args.
build_tree() {
    local dir="$1"; shift
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        cmake -S "$ROOT" -B "$dir" "$@" >&2
    fi
    cmake --build "$dir" -j"$(nproc)" >&2
}
