#pragma once
// cuFFT's entry points, resolved with dlopen/dlsym on first use instead of linked. Loading
// cuFFT and running its static constructors costs every process about 15 ms of CPU (the CLI,
// the Python module, the HDF5 filter plugin), yet only an FFT on the device calls it. cufft.h
// is included for its types alone: no cuFFT symbol is referenced at link time.
#include <cufft.h>

#include <span>
#include <string>

namespace gradcodec::cuda {

struct CufftApi {
    decltype(&cufftCreate) create = nullptr;
    decltype(&cufftMakePlanMany64) make_plan_many64 = nullptr;
    decltype(&cufftExecR2C) exec_r2c = nullptr;
    decltype(&cufftExecC2R) exec_c2r = nullptr;
    decltype(&cufftDestroy) destroy = nullptr;
};

// The cuFFT this build was configured against: its soname first (the loader's search path),
// then the full path in the toolkit's library directory. Loaded once, thread-safe; every call
// after a failed load fails the same way. Throws Error(usage) naming each library tried and
// dlerror()'s reason, as a missing device is reported.
const CufftApi& cufft();

// Loads the first of `candidates` that dlopen opens and resolves every entry point from it.
// Throws as cufft() does; a library lacking a function is named with the function.
CufftApi load_cufft(std::span<const std::string> candidates);

}  // namespace gradcodec::cuda
