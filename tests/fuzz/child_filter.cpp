// Linked into the gradcodec CLI of the fuzz build only (tests/fuzz/CMakeLists.txt), for
// fuzz_hdf5: gradcodec's HDF5 filter is registered as the process starts, the way repack and
// inspect register it, so a dataset of a fuzzed file whose pipeline names the filter's ID is
// read through it when encode reads that dataset (the released CLI finds it only through
// HDF5_PLUGIN_PATH). start_hdf5 runs first, so HDF5 starts with the CLI's own settings.
#include <cstdio>
#include <cstdlib>

#include "io/filtered_dataset.hpp"

namespace {

__attribute__((constructor)) void register_filter() {
    try {
        gradcodec::cli::register_gradcodec_filter();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "child_filter: %s\n", e.what());
        std::abort();
    }
}

}  // namespace
