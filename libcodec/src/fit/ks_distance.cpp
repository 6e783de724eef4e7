#include "fit/ks_distance.hpp"

#include <algorithm>
#include <cmath>

namespace gradcodec {
namespace {

constexpr std::size_t kChunk = 256;

// The distance at one distinct value v occupying sorted[i, j): both sides of its jump.
double distance_at(const DistFit& f, double v, std::size_t i, std::size_t j, double n) {
    return std::max(std::fabs(fitted_cdf_below(f, v) - static_cast<double>(i) / n),
                    std::fabs(fitted_cdf(f, v) - static_cast<double>(j) / n));
}

}  // namespace

double ks_distance(std::span<const float> sorted, const DistFit& f) {
    // Exact, but cheap: F and the empirical CDF both rise, so over a run of sorted values
    // [a, b] every point's distance is at most max(F(b) - E(a-), E(b) - F(a-)). Runs whose bound
    // cannot beat the best distance so far are skipped without evaluating F inside them.
    const std::size_t size = sorted.size();
    const double n = static_cast<double>(size);
    double d = 0;
    std::size_t i = 0;
    while (i < size) {
        std::size_t end = std::min(size, i + kChunk);
        while (end < size && sorted[end] == sorted[end - 1]) ++end;  // keep ties together
        const double lo = sorted[i], hi = sorted[end - 1];
        const double bound = std::max(fitted_cdf(f, hi) - static_cast<double>(i) / n,
                                      static_cast<double>(end) / n - fitted_cdf_below(f, lo));
        if (bound > d) {
            std::size_t a = i;
            while (a < end) {
                std::size_t b = a;
                while (b < end && sorted[b] == sorted[a]) ++b;
                d = std::max(d, distance_at(f, sorted[a], a, b, n));
                a = b;
            }
        }
        i = end;
    }
    return d;
}

}  // namespace gradcodec
