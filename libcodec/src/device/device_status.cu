// Whether the GPU path can run here: a device must exist and must accept this build's code
// (sm_90 machine code or compute_90 PTX by default; an older GPU has no usable image).
#include <cuda_runtime.h>

#include <string>

#include "gradcodec/cuda.hpp"

namespace gradcodec::cuda {
namespace {

__global__ void probe(int* out) {
    if (out != nullptr) *out = 1;
}

std::string failure(const char* what, cudaError_t status) {
    cudaGetLastError();  // clear the error so later calls start clean
    return std::string(what) + " (" + cudaGetErrorString(status) + ")";
}

}  // namespace

std::string device_problem() {
    int count = 0;
    if (const cudaError_t s = cudaGetDeviceCount(&count); s != cudaSuccess) {
        return failure("no usable CUDA device", s);
    }
    if (count == 0) return "no CUDA device found";
    cudaFuncAttributes attributes{};
    if (const cudaError_t s = cudaFuncGetAttributes(&attributes, probe); s != cudaSuccess) {
        return failure(
            "this build's GPU code does not run on device 0; rebuild with "
            "-DCMAKE_CUDA_ARCHITECTURES=native",
            s);
    }
    return {};
}

}  // namespace gradcodec::cuda
