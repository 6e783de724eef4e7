#include "quant/sign_means.hpp"

#include <cmath>

namespace gradcodec {

SignPair sign_pair(SignLevels kind, std::span<const float> values) {
    if (kind == SignLevels::unit) return {};
    if (kind == SignLevels::mean_magnitude) {
        double sum = 0;
        for (const float v : values) sum += std::fabs(static_cast<double>(v));
        const auto mean =
            values.empty() ? 0.0f : static_cast<float>(sum / static_cast<double>(values.size()));
        return {mean, -mean};
    }
    // Without a branch: signs are as good as random, and adding +0 leaves either sum as it is
    // (neither can be -0: both start at +0), so the sums are those of the branching loop.
    double positive = 0, negative = 0;
    std::uint64_t negatives = 0;
    for (const float v : values) {
        const bool is_negative = v < 0;
        const double d = v;
        negative += is_negative ? d : 0.0;
        positive += is_negative ? 0.0 : d;
        negatives += is_negative;
    }
    const std::uint64_t positives = values.size() - negatives;
    return {positives ? static_cast<float>(positive / static_cast<double>(positives)) : 0.0f,
            negatives ? static_cast<float>(negative / static_cast<double>(negatives)) : 0.0f};
}

void stored_levels(SignLevels kind, const SignPair& pair, float* out) {
    if (kind == SignLevels::mean_magnitude) out[0] = pair.non_negative;
    if (kind == SignLevels::two_means) {
        out[0] = pair.non_negative;
        out[1] = pair.negative;
    }
}

SignPair pair_of_stored(SignLevels kind, const float* stored) {
    if (kind == SignLevels::mean_magnitude) return {stored[0], -stored[0]};
    if (kind == SignLevels::two_means) return {stored[0], stored[1]};
    return {};
}

}  // namespace gradcodec
