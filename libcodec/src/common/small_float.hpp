#pragma once
// binary16 and bfloat16 conversions. Narrowing rounds to nearest, ties to even; a finite
// value that rounds past the largest finite half is reported, never turned into inf.
#include <bit>
#include <cstdint>
#include <optional>

namespace gradcodec {

enum class SmallFloat { f16, bf16 };

// nullopt when x is finite but out of range. NaN and inf map to NaN and inf of the same sign.
std::optional<std::uint16_t> narrow_to(SmallFloat type, double x);

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
