#include "cuda_check.hpp"
#include "quant/range_code.hpp"
#include "range_quant.hpp"

namespace gradcodec::cuda {
namespace {

__global__ void encode_codes(RangeEncodeConstants k, const float* in, std::uint64_t n,
                             std::uint32_t* out) {
    const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = range_code(k, __float_as_uint(in[i]));
}

__global__ void decode_codes(RangeDecodeConstants k, const std::uint32_t* in, std::uint64_t n,
                             float* out) {
    const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = __uint_as_float(range_value_bits(k, in[i]));
}

unsigned cover(std::uint64_t n) {
    return static_cast<unsigned>((n + 255) / 256);
}

}  // namespace

void encode_range_codes_on_device(const RangeLadder& ladder, Rounding rounding, const float* in,
                                  std::uint64_t n, std::uint32_t* codes) {
    if (n == 0) return;
    encode_codes<<<cover(n), 256>>>(range_encode_constants(ladder, rounding), in, n, codes);
    check(cudaDeviceSynchronize(), "range encode");
}

void decode_range_codes_on_device(const RangeLadder& ladder, const std::uint32_t* codes,
                                  std::uint64_t n, float* out) {
    if (n == 0) return;
    decode_codes<<<cover(n), 256>>>(range_decode_constants(ladder), codes, n, out);
    check(cudaDeviceSynchronize(), "range decode");
}

}  // namespace gradcodec::cuda
