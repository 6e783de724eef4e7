#include "quant/mantissa_choice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace gradcodec {

std::optional<RangeLadder> make_ladder(int bits, int mantissa, const LadderAnchor& anchor,
                                       Rounding rounding) {
    if (anchor.eps) return ladder_from_eps(bits, mantissa, *anchor.eps);
    return ladder_from_max(bits, mantissa, anchor.max_abs, rounding);
}

std::vector<int> mantissa_candidates(int bits, const LadderAnchor& anchor) {
    std::vector<int> out;
    const int highest = std::min(kRangeMaxMantissa, bits - 1);
    for (int m = min_mantissa(bits); m <= highest; ++m) {
        if (make_ladder(bits, m, anchor, Rounding::nearest)) out.push_back(m);
    }
    return out;
}

std::optional<int> choose_mantissa(int bits, Rounding rounding, const LadderAnchor& anchor,
                                   std::span<const float> values) {
    const std::vector<int> candidates = mantissa_candidates(bits, anchor);
    if (candidates.empty()) return std::nullopt;
    if (candidates.size() == 1) return candidates[0];

    // A strided sample keeps the choice O(sample) however large the tensor is; the max that
    // anchors the ladder is exact, only the error estimate is sampled.
    std::vector<float> sample;
    const std::size_t n = values.size();
    const std::size_t take = std::min(n, kMantissaSample);
    sample.reserve(take);
    for (std::size_t j = 0; j < take; ++j) {
        const float x = values[j * n / take];
        if (std::isfinite(x)) sample.push_back(x);
    }
    std::vector<std::uint32_t> codes(sample.size());
    std::vector<float> decoded(sample.size());

    int best = candidates[0];
    double best_error = std::numeric_limits<double>::infinity();
    for (const int m : candidates) {
        const RangeLadder ladder = *make_ladder(bits, m, anchor, rounding);
        encode_range_floats(ladder, rounding, sample, codes.data());
        decode_range_floats(ladder, codes.data(), std::span<float>(decoded));
        double error = 0;
        for (std::size_t i = 0; i < sample.size(); ++i) {
            const double d = static_cast<double>(sample[i]) - static_cast<double>(decoded[i]);
            error += d * d;
        }
        if (error < best_error) {
            best_error = error;
            best = m;
        }
    }
    return best;
}

}  // namespace gradcodec
