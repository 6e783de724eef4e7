#include "quant/natural_rounding.hpp"

#include <bit>
#include <cmath>
#include <cstdint>

#include "common/seeded_random.hpp"

namespace gradcodec {

void round_to_powers(std::span<const float> values, std::uint64_t seed, std::uint64_t first,
                     int max_exponent, std::span<std::int16_t> exponents) {
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double magnitude = std::fabs(static_cast<double>(values[i]));
        if (magnitude == 0) {
            exponents[i] = kZeroExponent;
            continue;
        }
        // |x| = m · 2^e with m in [1, 2), read off the binary64 fields: every binary32 value,
        // subnormals included, is a normal binary64, so m is exactly the significand with the
        // exponent field 1023 (frexp and ldexp give the same, through two library calls).
        const auto bits = std::bit_cast<std::uint64_t>(magnitude);
        int e = static_cast<int>(bits >> 52) - 1023;
        constexpr std::uint64_t kSignificand = (std::uint64_t{1} << 52) - 1;
        const double p =
            std::bit_cast<double>((bits & kSignificand) | (std::uint64_t{1023} << 52)) - 1.0;
        if (e < max_exponent && draw_below_probability(seeded_draw(seed, first + i), p)) ++e;
        exponents[i] = static_cast<std::int16_t>(e);
    }
}

}  // namespace gradcodec
