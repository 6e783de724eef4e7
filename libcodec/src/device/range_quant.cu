#include <bit>
#include <cmath>
#include <limits>

#include "cuda_check.hpp"
#include "range_quant.hpp"

namespace gradcodec::cuda {
namespace {

struct EncodeConstants {
    std::uint32_t half;
    int shift;
    std::int32_t offset;
    std::int32_t top;
    std::int32_t half_eps;
    int sign_shift;
};

// As quant/range_float.cpp: the pattern of the smallest float >= eps / 2.
std::uint32_t half_eps_bits(float eps) {
    const double half = static_cast<double>(eps) / 2.0;
    float f = static_cast<float>(half);
    if (static_cast<double>(f) < half)
        f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return std::bit_cast<std::uint32_t>(f);
}

__global__ void encode_codes(EncodeConstants k, const float* in, std::uint64_t n,
                             std::uint32_t* out) {
    const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const std::uint32_t b = __float_as_uint(in[i]);
    const std::uint32_t u = b & 0x7FFFFFFFu;
    std::int32_t code = static_cast<std::int32_t>((u + k.half) >> k.shift) - k.offset;
    code = min(code, k.top);
    const std::int32_t low = static_cast<std::int32_t>(u) >= k.half_eps ? 1 : 0;
    code = code < 1 ? low : code;
    out[i] = ((b >> 31) << k.sign_shift) | static_cast<std::uint32_t>(code);
}

__global__ void decode_codes(int shift, std::uint32_t offset, std::uint32_t magnitude_mask,
                             int sign_shift, const std::uint32_t* in, std::uint64_t n, float* out) {
    const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const std::uint32_t c = in[i];
    const std::uint32_t magnitude = c & magnitude_mask;
    const std::uint32_t sign = ((c >> sign_shift) & 1u) << 31;
    const std::uint32_t bits = magnitude == 0 ? 0u : (magnitude + offset) << shift;
    out[i] = __uint_as_float(bits | sign);
}

unsigned cover(std::uint64_t n) {
    return static_cast<unsigned>((n + 255) / 256);
}

}  // namespace

void encode_range_codes_on_device(const RangeLadder& ladder, Rounding rounding, const float* in,
                                  std::uint64_t n, std::uint32_t* codes) {
    if (n == 0) return;
    const int shift = ladder.shift();
    const EncodeConstants k{rounding == Rounding::nearest && shift > 0 ? 1u << (shift - 1) : 0u,
                            shift,
                            static_cast<std::int32_t>(ladder.pbase) - 1,
                            static_cast<std::int32_t>(ladder.top_code()),
                            static_cast<std::int32_t>(half_eps_bits(ladder.eps())),
                            ladder.bits - 1};
    encode_codes<<<cover(n), 256>>>(k, in, n, codes);
    check(cudaDeviceSynchronize(), "range encode");
}

void decode_range_codes_on_device(const RangeLadder& ladder, const std::uint32_t* codes,
                                  std::uint64_t n, float* out) {
    if (n == 0) return;
    decode_codes<<<cover(n), 256>>>(ladder.shift(), ladder.pbase - 1, ladder.top_code(),
                                    ladder.bits - 1, codes, n, out);
    check(cudaDeviceSynchronize(), "range decode");
}

}  // namespace gradcodec::cuda
