#pragma once
// Natural compression's rounding (format-spec/codec-natural.md §2): each non-zero value to one
// of the two signed powers of two around it, up with probability (|x| - 2^e) / 2^e, so that
// the expectation is the value itself.
#include <cstdint>
#include <span>

namespace gradcodec {

// The exponent a value of zero gets: below every real exponent.
inline constexpr std::int16_t kZeroExponent = -32768;

// Exponents for `values`, elements [first, ...) of the tensor; kZeroExponent for a zero. The
// exponent never exceeds `max_exponent` (the largest power of two of the tensor's dtype): a
// value that would round up past it rounds down.
void round_to_powers(std::span<const float> values, std::uint64_t seed, std::uint64_t first,
                     int max_exponent, std::span<std::int16_t> exponents);

}  // namespace gradcodec
