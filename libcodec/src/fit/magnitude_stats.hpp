#pragma once
// One-pass sums over magnitudes that the distribution fits are built from.
#include <cstdint>
#include <span>

namespace gradcodec {

// Over the elements with |v| > above (every element when above < 0).
struct TailStats {
    std::uint64_t count = 0;
    double sum = 0;          // of |v|
    double sum_squares = 0;  // of |v|^2
    float min = 0;           // smallest |v| counted (0 when count == 0)

    double mean() const { return count ? sum / static_cast<double>(count) : 0.0; }
    // Unbiased (n-1) variance; 0 below two elements or when rounding makes it negative.
    double variance() const;
};

TailStats tail_stats(std::span<const float> v, float above);

// For the gamma fit, which needs ln|v| and so leaves zeros out.
struct LogStats {
    std::uint64_t nonzero = 0;
    double sum = 0;      // of |v| over nonzero elements
    double sum_log = 0;  // of ln|v| over nonzero elements
};

LogStats log_stats(std::span<const float> v);

}  // namespace gradcodec
