#pragma once
// CUDA and cuFFT failures become gradcodec errors (kind io: the device failed us), so the
// CLI reports them with a message instead of crashing.
#include <cuda_runtime.h>
#include <cufft.h>

#include <string>

#include "gradcodec/error.hpp"

namespace gradcodec::cuda {

inline void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        fail(ErrorKind::io, std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
    }
}

inline void check(cufftResult status, const char* what) {
    if (status != CUFFT_SUCCESS) {
        fail(ErrorKind::io, std::string("cuFFT: ") + what + " failed (cufftResult " +
                                std::to_string(static_cast<int>(status)) + ")");
    }
}

// Device memory owned by one scope.
template <class T>
class DeviceArray {
  public:
    explicit DeviceArray(std::size_t size) : size_(size) {
        check(cudaMalloc(reinterpret_cast<void**>(&data_), sizeof(T) * (size == 0 ? 1 : size)),
              "cudaMalloc");
    }
    ~DeviceArray() { cudaFree(data_); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return size_; }

  private:
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace gradcodec::cuda
