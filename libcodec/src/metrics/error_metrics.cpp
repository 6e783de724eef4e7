#include <algorithm>
#include <cmath>
#include <limits>

#include "common/float_values.hpp"
#include "gradcodec/metrics.hpp"

namespace gradcodec {

void MetricsAccumulator::add(DType dtype, std::span<const std::byte> original,
                             std::span<const std::byte> decoded) {
    const std::size_t n = original.size() / dtype_size(dtype);
    for (std::size_t i = 0; i < n; ++i) {
        const double x = float_element(dtype, original, i);
        const double y = float_element(dtype, decoded, i);
        const double e = x - y;
        sums_.sum_sq_error += e * e;
        sums_.sum_sq_original += x * x;
        sums_.sum_sq_decoded += y * y;
        sums_.sum_product += x * y;
        sums_.max_abs = std::max(sums_.max_abs, std::fabs(e));
        if (sums_.count == 0 && i == 0) {
            sums_.min_original = sums_.max_original = x;
        }
        sums_.min_original = std::min(sums_.min_original, x);
        sums_.max_original = std::max(sums_.max_original, x);
    }
    sums_.count += n;
}

ErrorMetrics MetricsAccumulator::result() const {
    constexpr double inf = std::numeric_limits<double>::infinity();
    ErrorMetrics m = sums_;
    const double xx = m.sum_sq_original, yy = m.sum_sq_decoded;
    m.rel_l2 = xx > 0 ? std::sqrt(m.sum_sq_error / xx) : (m.sum_sq_error > 0 ? inf : 0.0);
    m.cosine = (xx > 0 && yy > 0) ? m.sum_product / std::sqrt(xx * yy) : (xx == yy ? 1.0 : 0.0);
    m.energy_kept = xx > 0 ? yy / xx : (yy > 0 ? inf : 1.0);
    if (m.count == 0 || m.sum_sq_error == 0) {
        m.psnr_db = inf;
    } else {
        const double mse = m.sum_sq_error / static_cast<double>(m.count);
        const double range = m.max_original - m.min_original;
        m.psnr_db = range > 0 ? 20 * std::log10(range) - 10 * std::log10(mse) : -inf;
    }
    return m;
}

}  // namespace gradcodec
