#include "fit/ks_distance.hpp"

#include <algorithm>
#include <cmath>

namespace gradcodec {

double ks_distance(std::span<const float> sorted, const DistFit& f) {
    const double n = static_cast<double>(sorted.size());
    double d = 0;
    std::size_t i = 0;
    while (i < sorted.size()) {
        std::size_t j = i;
        while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
        const double v = sorted[i];
        d = std::max(d, std::fabs(fitted_cdf_below(f, v) - static_cast<double>(i) / n));
        d = std::max(d, std::fabs(fitted_cdf(f, v) - static_cast<double>(j) / n));
        i = j;
    }
    return d;
}

}  // namespace gradcodec
