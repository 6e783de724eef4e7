#pragma once
// Test helpers: copy host vectors to and from device memory.
#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <vector>

template <class T>
class DeviceBuffer {
  public:
    explicit DeviceBuffer(std::size_t n) : n_(n) {
        REQUIRE(cudaMalloc(reinterpret_cast<void**>(&p_), sizeof(T) * (n == 0 ? 1 : n)) ==
                cudaSuccess);
    }
    explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
        if (!host.empty()) {
            REQUIRE(cudaMemcpy(p_, host.data(), sizeof(T) * n_, cudaMemcpyHostToDevice) ==
                    cudaSuccess);
        }
    }
    ~DeviceBuffer() { cudaFree(p_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    T* get() { return p_; }
    std::vector<T> host(std::size_t count) const {
        std::vector<T> out(count);
        if (count != 0) {
            REQUIRE(cudaMemcpy(out.data(), p_, sizeof(T) * count, cudaMemcpyDeviceToHost) ==
                    cudaSuccess);
        }
        return out;
    }
    std::vector<T> host() const { return host(n_); }

  private:
    T* p_ = nullptr;
    std::size_t n_ = 0;
};
