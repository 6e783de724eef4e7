#pragma once
// One element's range code and its inverse, as integer arithmetic on bit patterns, for
// constants computed once per ladder. The CPU's loops (range_float.cpp) and the device's
// kernels (device/range_quant.cu) both run these, so their codes agree bit for bit.
#include <cstdint>

#include "quant/range_float.hpp"

#if defined(__CUDACC__)
#define GRADCODEC_HOST_DEVICE __host__ __device__
#else
#define GRADCODEC_HOST_DEVICE
#endif

namespace gradcodec {

struct RangeEncodeConstants {
    std::uint32_t half;     // half a step, added before the shift to round to nearest; or 0
    int shift;              // 23 - m: a magnitude pattern shifted by it is its key
    std::int32_t offset;    // pbase - 1: key - offset is the magnitude code
    std::int32_t top;       // K, the top magnitude code
    std::int32_t half_eps;  // the pattern of the smallest float >= eps / 2
    int sign_shift;         // N - 1
};

struct RangeDecodeConstants {
    int shift;
    std::uint32_t offset;
    std::uint32_t magnitude_mask;  // the code's bits below the sign
    int sign_shift;
};

RangeEncodeConstants range_encode_constants(const RangeLadder& ladder, Rounding rounding);
RangeDecodeConstants range_decode_constants(const RangeLadder& ladder);

// The N-bit code of the float whose pattern is `b`. Straight-line code with no branch, so the
// CPU's loops vectorise: the key by shift (after adding half a step for nearest), clamped to
// the top; below eps, 0 or eps, whichever is nearer; then the sign.
GRADCODEC_HOST_DEVICE inline std::uint32_t range_code(const RangeEncodeConstants& k,
                                                      std::uint32_t b) {
    const std::uint32_t u = b & 0x7FFFFFFFu;
    std::int32_t code = static_cast<std::int32_t>((u + k.half) >> k.shift) - k.offset;
    code = code < k.top ? code : k.top;
    const std::int32_t low = static_cast<std::int32_t>(u) >= k.half_eps ? 1 : 0;
    code = code < 1 ? low : code;
    return ((b >> 31) << k.sign_shift) | static_cast<std::uint32_t>(code);
}

// The pattern of the float that code `c` stands for.
GRADCODEC_HOST_DEVICE inline std::uint32_t range_value_bits(const RangeDecodeConstants& k,
                                                            std::uint32_t c) {
    const std::uint32_t magnitude = c & k.magnitude_mask;
    const std::uint32_t sign = ((c >> k.sign_shift) & 1u) << 31;
    return (magnitude == 0 ? 0u : (magnitude + k.offset) << k.shift) | sign;
}

}  // namespace gradcodec
