#include "quant/mantissa_choice.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/scratch.hpp"

namespace gradcodec {
namespace {

// The expected squared error of one value at `x` on the ladder: uniform rounding error in
// its step (variance step^2/12 for nearest, mean square step^2/3 for truncation), 0 or eps
// below eps, the clamp above the top.
double value_error(double x, const RangeLadder& ladder, Rounding rounding) {
    const double eps = ladder.eps();
    const double top = ladder.top();
    if (x < eps) {
        const double d = x >= eps / 2 ? eps - x : x;
        return d * d;
    }
    if (x > top) return (x - top) * (x - top);  // eps mode only: a max anchor puts max on top
    int exponent = 0;
    std::frexp(x, &exponent);  // x in [2^(exponent-1), 2^exponent)
    const double step = std::ldexp(1.0, std::max(exponent - 1, -126) - ladder.mantissa);
    return step * step / (rounding == Rounding::nearest ? 12.0 : 3.0);
}

// `sum` plus the squared differences of the finite originals from their decoded values, in
// order. Not inlined: the caller's running sum lives across calls, which clobber every XMM
// register, and GCC then kept it in memory inside this loop too, a store and a reload per
// value.
[[gnu::noinline]] double add_squared_errors(double sum, std::span<const float> original,
                                            const float* decoded) {
    for (std::size_t i = 0; i < original.size(); ++i) {
        if (!std::isfinite(original[i])) continue;
        const double d = static_cast<double>(original[i]) - static_cast<double>(decoded[i]);
        sum += d * d;
    }
    return sum;
}

// The exact squared error of encoding `values` on the ladder.
double exact_error(std::span<const float> values, const RangeLadder& ladder, Rounding rounding) {
    std::array<std::uint32_t, 256> codes;
    std::array<float, 256> decoded;
    double error = 0;
    for (std::size_t first = 0; first < values.size(); first += codes.size()) {
        const auto block = values.subspan(first, std::min(codes.size(), values.size() - first));
        encode_range_floats(ladder, rounding, block, codes.data());
        decode_range_floats(ladder, codes.data(), std::span<float>(decoded.data(), block.size()));
        error = add_squared_errors(error, block, decoded.data());
    }
    return error;
}

double histogram_error(const MagnitudeSurvey& survey, std::size_t first, std::size_t last,
                       const RangeLadder& ladder, Rounding rounding, float max_abs) {
    double error = 0;
    for (std::size_t b = first; b < last; ++b) {
        if (survey.counts[b] == 0) continue;
        // The bin's centre (its bit pattern plus half a bin), but never above the max: the
        // max's bin would otherwise look clamped by a ladder whose top is the max itself.
        const auto centre_bits = static_cast<std::uint32_t>((b << kMagnitudeBinShift) |
                                                            (1u << (kMagnitudeBinShift - 1)));
        const double centre = std::min(std::bit_cast<float>(centre_bits), max_abs);
        error += static_cast<double>(survey.counts[b]) * value_error(centre, ladder, rounding);
    }
    return error;
}

}  // namespace

std::optional<RangeLadder> make_ladder(int bits, int mantissa, const LadderAnchor& anchor,
                                       Rounding rounding) {
    if (anchor.eps) return ladder_from_eps(bits, mantissa, *anchor.eps);
    return ladder_from_max(bits, mantissa, anchor.max_abs, rounding);
}

ScratchVector<int> mantissa_candidates(int bits, const LadderAnchor& anchor) {
    ScratchVector<int> out;
    const int highest = std::min(kRangeMaxMantissa, bits - 1);
    for (int m = min_mantissa(bits); m <= highest; ++m) {
        if (make_ladder(bits, m, anchor, Rounding::nearest)) out.push_back(m);
    }
    return out;
}

std::optional<int> choose_mantissa(int bits, Rounding rounding, const LadderAnchor& anchor,
                                   std::span<const float> values, const MagnitudeSurvey* survey) {
    const ScratchVector<int> candidates = mantissa_candidates(bits, anchor);
    if (candidates.empty()) return std::nullopt;
    if (candidates.size() == 1) return candidates[0];

    // Small tensors are measured exactly; large ones through the histogram, whose cost does
    // not grow with the tensor.
    const bool surveyed = survey != nullptr && survey->has_histogram;
    const bool exact = !surveyed && !choice_uses_histogram(values.size());
    std::optional<MagnitudeSurvey> own;
    if (!exact && !surveyed) {
        own = survey_magnitudes(values, true);
        survey = &*own;
    }
    std::size_t first = 1, last = kFirstNonFiniteBin;
    if (!exact) {
        // Bin 0 holds exact zeros (and magnitudes below 2^-126 * 9/8), which cost nothing;
        // the bins from kFirstNonFiniteBin on hold the values no ladder carries.
        while (first < last && survey->counts[first] == 0) ++first;
        while (last > first && survey->counts[last - 1] == 0) --last;
    }

    int best = candidates[0];
    double best_error = std::numeric_limits<double>::infinity();
    for (const int m : candidates) {
        const RangeLadder ladder = *make_ladder(bits, m, anchor, rounding);
        const double error =
            exact ? exact_error(values, ladder, rounding)
                  : histogram_error(*survey, first, last, ladder, rounding, anchor.max_abs);
        if (error < best_error) {
            best_error = error;
            best = m;
        }
    }
    return best;
}

}  // namespace gradcodec
