#include "quant/natural_rounding.hpp"

#include <cmath>

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
        int e = 0;
        std::frexp(magnitude, &e);
        --e;  // |x| = m · 2^e with m in [1, 2)
        const double p = std::ldexp(magnitude, -e) - 1.0;
        if (e < max_exponent && draw_below_probability(seeded_draw(seed, first + i), p)) ++e;
        exponents[i] = static_cast<std::int16_t>(e);
    }
}

}  // namespace gradcodec
