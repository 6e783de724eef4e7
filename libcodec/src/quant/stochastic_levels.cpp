#include "quant/stochastic_levels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "common/seeded_random.hpp"

namespace gradcodec {

float bucket_scale(BucketScale kind, std::span<const float> values) {
    if (kind == BucketScale::max_magnitude) {
        float m = 0;
        for (const float v : values) m = std::max(m, std::fabs(v));
        return m;
    }
    double sum = 0;
    for (const float v : values) sum += static_cast<double>(v) * static_cast<double>(v);
    return static_cast<float>(std::sqrt(sum));
}

void round_to_levels(std::span<const float> values, float scale, std::uint32_t s,
                     std::uint64_t seed, std::uint64_t first, std::span<std::int32_t> levels) {
    const double per_unit = static_cast<double>(s) / static_cast<double>(scale);
    for (std::size_t i = 0; i < values.size(); ++i) {
        const float v = values[i];
        if (scale == 0 || v == 0) {
            levels[i] = 0;
            continue;
        }
        const double r = std::fabs(static_cast<double>(v)) * per_unit;
        std::int32_t level = static_cast<std::int32_t>(s);
        if (r < static_cast<double>(s)) {
            // floor(r) for 0 <= r < s <= 2^31, without a library call.
            const double low = static_cast<double>(static_cast<std::int64_t>(r));
            level = static_cast<std::int32_t>(low) +
                    (draw_below_probability(seeded_draw(seed, first + i), r - low) ? 1 : 0);
        }
        levels[i] = v < 0 ? -level : level;
    }
}

float level_value(float scale, std::int32_t level, std::uint32_t s) {
    const double magnitude =
        static_cast<double>(scale) * static_cast<double>(std::abs(level)) / static_cast<double>(s);
    return static_cast<float>(level < 0 ? -magnitude : magnitude);
}

}  // namespace gradcodec
