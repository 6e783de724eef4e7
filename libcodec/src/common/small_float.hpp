#pragma once
// binary16 and bfloat16 conversions. Narrowing rounds to nearest, ties to even; a finite
// value that rounds past the largest finite half is reported, never turned into inf.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace gradcodec {

enum class SmallFloat { f16, bf16 };

// nullopt when x is finite but out of range. NaN and inf map to NaN and inf of the same sign.
std::optional<std::uint16_t> narrow_to(SmallFloat type, double x);

// What narrow_float_bits returns for a finite value that rounds past the largest finite one.
inline constexpr std::uint32_t kNarrowOverflow = 0x10000;

// narrow_to for binary32 input, bit for bit, in integer arithmetic without branches, so that
// loops over it vectorise: the encoding, or kNarrowOverflow (sign bit kept) on overflow.
// It relies on the default rounding mode, as narrow_to's std::nearbyint does.
inline std::uint32_t narrow_float_bits(SmallFloat type, float x) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
    const std::uint32_t sign = (bits >> 16) & 0x8000u;
    const std::uint32_t a = bits & 0x7fffffffu;
    std::uint32_t h;
    if (type == SmallFloat::f16) {
        // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits to nearest even;
        // a carry out of the mantissa steps the exponent, as it should. (Wraps, unused, below.)
        const std::uint32_t normal = (a + 0xfffu + ((a >> 13) & 1u) - 0x38000000u) >> 13;
        // Subnormal (|x| < 2^-14): adding 0.5, whose ulp is 2^-24, makes the FPU round |x| to a
        // multiple of the f16 subnormal step; the low bits are then the f16 encoding.
        const std::uint32_t subnormal =
            std::bit_cast<std::uint32_t>(std::bit_cast<float>(a) + 0.5f) - 0x3f000000u;
        h = a < 0x38800000u ? subnormal : normal;
        h = a >= 0x477ff000u ? kNarrowOverflow : h;  // 65520 and up round past 65504
        h = a >= 0x7f800000u ? (a == 0x7f800000u ? 0x7c00u : 0x7e00u) : h;
    } else {
        // Same exponent range: round the 16 dropped bits to nearest even, subnormals included.
        h = (a + 0x7fffu + ((a >> 16) & 1u)) >> 16;
        h = a >= 0x7f7f8000u ? kNarrowOverflow : h;  // rounds past 0x7f7f
        h = a >= 0x7f800000u ? (a == 0x7f800000u ? 0x7f80u : 0x7fc0u) : h;
    }
    return sign | h;
}

// Narrows every value to 2 little-endian bytes at out[2i]. Returns values.size(), or the
// index of the first value that overflows (the bytes written are then unspecified).
// Uses the CPU's conversion instructions where it has them, with the same bytes.
std::size_t narrow_floats(SmallFloat type, std::span<const float> values, std::uint8_t* out);

// Widens out.size() values of 2 little-endian bytes each, exactly as widen_from does.
void widen_halves(SmallFloat type, const std::uint8_t* in, std::span<float> out);

// The instruction sets the array conversions can run on. Every path gives the bytes of the
// portable code: the hardware's own NaN, overflow and subnormal rules are corrected lane by
// lane where they differ (F16C quiets NaN payloads and rounds overflow to inf; AVX-512 BF16
// flushes subnormals to zero). On CPUs without AVX-512 BF16, AVX2 narrows bf16 eight values
// at a time by the portable integer rule. bf16 widening is a shift, exact on any path; AVX2
// does it eight values at a time.
enum class ConversionPath { portable, f16c, avx512_bf16, avx2 };

// The portable code every path must match.
std::size_t narrow_floats_portable(SmallFloat type, std::span<const float> values,
                                   std::uint8_t* out);
void widen_halves_portable(SmallFloat type, const std::uint8_t* in, std::span<float> out);

// The fastest paths this CPU supports for the type (checked once, at run time).
ConversionPath best_conversion_path(SmallFloat type);
ConversionPath best_widening_path(SmallFloat type);
bool cpu_supports(ConversionPath path);

// narrow_floats and widen_halves on a chosen path, for tests and benchmarks; a path that the
// CPU or the type lacks (avx512_bf16 or avx2 for f16, f16c for bf16) runs the portable code.
std::size_t narrow_floats_on(ConversionPath path, SmallFloat type, std::span<const float> values,
                             std::uint8_t* out);
void widen_halves_on(ConversionPath path, SmallFloat type, const std::uint8_t* in,
                     std::span<float> out);

float f16_to_float(std::uint16_t bits);
inline float bf16_to_float(std::uint16_t bits) {
    return std::bit_cast<float>(std::uint32_t{bits} << 16);
}
inline float widen_from(SmallFloat type, std::uint16_t bits) {
    return type == SmallFloat::f16 ? f16_to_float(bits) : bf16_to_float(bits);
}

// The largest finite value of the type, for error messages.
double small_float_max(SmallFloat type);

}  // namespace gradcodec
