#include "fit/distribution.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fit/incomplete_gamma.hpp"

namespace gradcodec {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kShapeZero = 1e-9;  // |xi| below this uses the exponential limit

bool point_mass(const DistFit& f) {
    return std::isinf(f.shape);
}

}  // namespace

DistFit fit_exp(const TailStats& s, double offset) {
    DistFit f;
    f.dist = Distribution::exp;
    f.scale = std::max(0.0, s.mean() - offset);
    return f;
}

DistFit fit_gpareto(const TailStats& s, double offset) {
    DistFit f;
    f.dist = Distribution::gpareto;
    const double m = std::max(0.0, s.mean() - offset);
    const double v = s.variance();
    if (!(v > 0) || m == 0) {
        // No spread: the moment equations have no solution; a point mass at the mean.
        f.shape = kInf;
        f.scale = m;
        return f;
    }
    const double r = m * m / v;
    // The moment estimator always gives xi < 1/2 (where the variance exists); the clamp
    // only guards rounding.
    f.shape = std::min(-0.5 * (r - 1.0), 0.5);
    f.scale = 0.5 * m * (r + 1.0);
    return f;
}

DistFit fit_gamma(const LogStats& s, std::uint64_t total) {
    DistFit f;
    f.dist = Distribution::gamma;
    f.zero_fraction =
        total ? static_cast<double>(total - s.nonzero) / static_cast<double>(total) : 1.0;
    if (s.nonzero == 0) {
        f.shape = kInf;
        f.scale = 0;
        return f;
    }
    const double mean = s.sum / static_cast<double>(s.nonzero);
    const double sv = std::log(mean) - s.sum_log / static_cast<double>(s.nonzero);
    if (!(sv > 1e-12)) {  // all equal (sv = 0 up to rounding): a point mass
        f.shape = kInf;
        f.scale = mean;
        return f;
    }
    // Closed-form approximation of the MLE (Minka), docs/algorithms.md §6.2.
    f.shape = (3.0 - sv + std::sqrt((sv - 3.0) * (sv - 3.0) + 24.0 * sv)) / (12.0 * sv);
    f.scale = mean / f.shape;
    return f;
}

double tail_quantile(const DistFit& f, double p) {
    if (point_mass(f)) return f.scale;
    switch (f.dist) {
        case Distribution::exp:
            return f.scale * std::log(1.0 / p);
        case Distribution::gpareto:
            if (std::fabs(f.shape) < kShapeZero) return f.scale * std::log(1.0 / p);
            return f.scale / f.shape * std::expm1(-f.shape * std::log(p));
        case Distribution::gamma: {
            if (f.zero_fraction >= 1.0) return 0.0;
            const double pn = p / (1.0 - f.zero_fraction);  // the tail among nonzero values
            if (pn >= 1.0) return 0.0;
            return f.scale * inverse_regularized_upper_gamma(f.shape, pn);
        }
    }
    return 0.0;
}

double fitted_cdf(const DistFit& f, double x) {
    if (x < 0) return 0.0;
    if (point_mass(f))
        return x >= f.scale ? 1.0 : f.dist == Distribution::gamma ? f.zero_fraction : 0.0;
    switch (f.dist) {
        case Distribution::exp:
            return f.scale > 0 ? -std::expm1(-x / f.scale) : 1.0;
        case Distribution::gpareto: {
            if (f.scale <= 0) return 1.0;
            if (std::fabs(f.shape) < kShapeZero) return -std::expm1(-x / f.scale);
            const double z = 1.0 + f.shape * x / f.scale;
            if (z <= 0) return 1.0;  // beyond the finite end of a xi < 0 support
            return -std::expm1(-std::log(z) / f.shape);
        }
        case Distribution::gamma:
            return f.zero_fraction +
                   (1.0 - f.zero_fraction) * regularized_lower_gamma(f.shape, x / f.scale);
    }
    return 0.0;
}

double fitted_cdf_below(const DistFit& f, double x) {
    if (x <= 0) return 0.0;
    if (point_mass(f) && x == f.scale) {
        return f.dist == Distribution::gamma ? f.zero_fraction : 0.0;
    }
    return fitted_cdf(f, x);
}

}  // namespace gradcodec
