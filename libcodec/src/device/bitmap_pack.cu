#include <cuda_runtime.h>

#include "bitmap_pack.hpp"
#include "cuda_check.hpp"

namespace gradcodec::cuda {
namespace {

// On a little-endian machine bit p mod 32 of 32-bit word p/32 is bit p mod 8 of byte p/8,
// so word-wide atomics build the byte map directly.
__global__ void set_bits(const std::uint64_t* kept, std::uint64_t k, unsigned int* words) {
    const std::uint64_t j = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
    if (j >= k) return;
    const std::uint64_t p = kept[j];
    atomicOr(&words[p >> 5], 1u << (p & 31));
}

}  // namespace

std::vector<std::uint8_t> bitmap_on_device(const std::uint64_t* kept, std::uint64_t k,
                                           std::uint64_t n) {
    const std::uint64_t words = (n + 31) / 32;
    DeviceArray<unsigned int> map(words);
    check(cudaMemset(map.data(), 0, sizeof(unsigned int) * (words == 0 ? 1 : words)),
          "bitmap reset");
    if (k != 0) {
        set_bits<<<static_cast<unsigned>((k + 255) / 256), 256>>>(kept, k, map.data());
        check(cudaGetLastError(), "bitmap kernel");
    }
    std::vector<std::uint8_t> out((n + 7) / 8);
    if (!out.empty()) {
        check(cudaMemcpy(out.data(), map.data(), out.size(), cudaMemcpyDeviceToHost),
              "bitmap copy");
    }
    return out;
}

}  // namespace gradcodec::cuda
