#include "quant/mantissa_choice.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/parallel.hpp"
#include "common/scratch.hpp"

namespace gradcodec {
namespace {

// Bins of the magnitude's top 11 bits: the exponent and 3 mantissa bits, 8 bins per octave.
// Fine enough that a bin's centre stands for its values; coarse enough to build in one pass.
constexpr int kBinShift = 20;
constexpr std::size_t kBins = std::size_t{1} << (31 - kBinShift);
constexpr std::size_t kFirstNonFiniteBin = 0x7F800000u >> kBinShift;

using Histogram = std::array<std::uint64_t, kBins>;

// Four interleaved sub-histograms: gradients crowd into few bins, and one table would make
// every increment wait on the previous one to the same counter.
Histogram magnitude_histogram_serial(std::span<const float> values) {
    std::array<std::array<std::uint32_t, kBins>, 4> parts{};
    Histogram total{};
    const float* v = values.data();
    const std::size_t n = values.size();
    auto bin = [](float x) { return (std::bit_cast<std::uint32_t>(x) & 0x7FFFFFFFu) >> kBinShift; };
    // uint32 counters cannot overflow within a flush interval of 2^31 values per part.
    constexpr std::size_t kFlush = std::size_t{1} << 31;
    for (std::size_t start = 0; start < n; start += kFlush) {
        const std::size_t end = std::min(n, start + kFlush);
        std::size_t i = start;
        for (; i + 4 <= end; i += 4) {
            ++parts[0][bin(v[i])];
            ++parts[1][bin(v[i + 1])];
            ++parts[2][bin(v[i + 2])];
            ++parts[3][bin(v[i + 3])];
        }
        for (; i < end; ++i) ++parts[0][bin(v[i])];
        for (auto& part : parts) {
            for (std::size_t b = 0; b < kBins; ++b) total[b] += part[b];
            part.fill(0);
        }
    }
    return total;
}

// One piece per thread, summed: exact integer counts whatever the split.
Histogram magnitude_histogram(std::span<const float> values) {
    const unsigned threads = codec_threads();
    if (threads <= 1) return magnitude_histogram_serial(values);
    const std::size_t piece =
        std::max(std::size_t{1} << 20, (values.size() + threads - 1) / threads);
    ScratchVector<Histogram> parts(piece_count(values.size(), piece));
    parallel_pieces(values.size(), piece, [&](std::size_t first, std::size_t size) {
        parts[first / piece] = magnitude_histogram_serial(values.subspan(first, size));
    });
    Histogram total{};
    for (const Histogram& part : parts) {
        for (std::size_t b = 0; b < kBins; ++b) total[b] += part[b];
    }
    return total;
}

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

// The exact squared error of encoding `values` on the ladder.
double exact_error(std::span<const float> values, const RangeLadder& ladder, Rounding rounding) {
    std::array<std::uint32_t, 256> codes;
    std::array<float, 256> decoded;
    double error = 0;
    for (std::size_t first = 0; first < values.size(); first += codes.size()) {
        const auto block = values.subspan(first, std::min(codes.size(), values.size() - first));
        encode_range_floats(ladder, rounding, block, codes.data());
        decode_range_floats(ladder, codes.data(), std::span<float>(decoded.data(), block.size()));
        for (std::size_t i = 0; i < block.size(); ++i) {
            if (!std::isfinite(block[i])) continue;
            const double d = static_cast<double>(block[i]) - static_cast<double>(decoded[i]);
            error += d * d;
        }
    }
    return error;
}

double histogram_error(const Histogram& histogram, std::size_t first, std::size_t last,
                       const RangeLadder& ladder, Rounding rounding, float max_abs) {
    double error = 0;
    for (std::size_t b = first; b < last; ++b) {
        if (histogram[b] == 0) continue;
        // The bin's centre (its bit pattern plus half a bin), but never above the max: the
        // max's bin would otherwise look clamped by a ladder whose top is the max itself.
        const auto centre_bits =
            static_cast<std::uint32_t>((b << kBinShift) | (1u << (kBinShift - 1)));
        const double centre = std::min(std::bit_cast<float>(centre_bits), max_abs);
        error += static_cast<double>(histogram[b]) * value_error(centre, ladder, rounding);
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
                                   std::span<const float> values) {
    const ScratchVector<int> candidates = mantissa_candidates(bits, anchor);
    if (candidates.empty()) return std::nullopt;
    if (candidates.size() == 1) return candidates[0];

    // Small tensors are measured exactly; large ones through the histogram, whose cost does
    // not grow with the tensor.
    const bool exact = values.size() <= kExactChoiceLimit;
    Histogram histogram{};
    std::size_t first = 1, last = kFirstNonFiniteBin;
    if (!exact) {
        histogram = magnitude_histogram(values);
        // Bin 0 holds exact zeros (and magnitudes below 2^-126 * 9/8), which cost nothing.
        while (first < last && histogram[first] == 0) ++first;
        while (last > first && histogram[last - 1] == 0) --last;
    }

    int best = candidates[0];
    double best_error = std::numeric_limits<double>::infinity();
    for (const int m : candidates) {
        const RangeLadder ladder = *make_ladder(bits, m, anchor, rounding);
        const double error =
            exact ? exact_error(values, ladder, rounding)
                  : histogram_error(histogram, first, last, ladder, rounding, anchor.max_abs);
        if (error < best_error) {
            best_error = error;
            best = m;
        }
    }
    return best;
}

}  // namespace gradcodec
