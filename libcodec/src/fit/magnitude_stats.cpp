#include "fit/magnitude_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gradcodec {

double TailStats::variance() const {
    if (count < 2) return 0.0;
    const double c = static_cast<double>(count);
    const double v = (sum_squares - sum * sum / c) / (c - 1.0);
    return v > 0 ? v : 0.0;
}

TailStats tail_stats(std::span<const float> v, float above) {
    // Eight independent lanes: the reassociation the compiler may not do on its own.
    constexpr std::size_t kLanes = 8;
    double s[kLanes] = {}, q[kLanes] = {};
    std::uint64_t c[kLanes] = {};
    float lo[kLanes];
    std::fill(lo, lo + kLanes, std::numeric_limits<float>::infinity());
    const std::size_t n = v.size();
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        for (std::size_t j = 0; j < kLanes; ++j) {
            const float a = std::fabs(v[i + j]);
            const bool in = a > above;
            const double d = in ? a : 0.0;
            s[j] += d;
            q[j] += d * d;
            c[j] += in ? 1 : 0;
            lo[j] = in && a < lo[j] ? a : lo[j];
        }
    }
    TailStats t;
    for (; i < n; ++i) {
        const float a = std::fabs(v[i]);
        if (!(a > above)) continue;
        t.sum += a;
        t.sum_squares += double{a} * a;
        ++t.count;
        lo[0] = std::min(lo[0], a);
    }
    float smallest = std::numeric_limits<float>::infinity();
    for (std::size_t j = 0; j < kLanes; ++j) {
        t.sum += s[j];
        t.sum_squares += q[j];
        t.count += c[j];
        smallest = std::min(smallest, lo[j]);
    }
    t.min = t.count ? smallest : 0.0f;
    return t;
}

LogStats log_stats(std::span<const float> v) {
    LogStats t;
    for (const float x : v) {
        const float a = std::fabs(x);
        if (a == 0) continue;
        ++t.nonzero;
        t.sum += a;
        t.sum_log += std::log(static_cast<double>(a));
    }
    return t;
}

}  // namespace gradcodec
