#pragma once
// The largest magnitude of a float array as a bit pattern (sign cleared): an integer max, so
// NaN ranks above infinity, and a result >= 0x7f800000 means some value is not finite.
#include <cstdint>
#include <span>

namespace gradcodec {

std::uint32_t largest_magnitude_bits(std::span<const float> values);

}  // namespace gradcodec
