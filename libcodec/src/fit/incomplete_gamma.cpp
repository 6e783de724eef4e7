#include "fit/incomplete_gamma.hpp"

#include <cmath>
#include <limits>

#include "common/log_gamma.hpp"

namespace gradcodec {
namespace {

constexpr double kEps = 1e-16;
constexpr double kTiny = 1e-300;
constexpr int kMaxTerms = 100000;

// log of x^a e^-x / Gamma(a): the common prefactor of both expansions.
double log_prefactor(double a, double x) {
    return a * std::log(x) - x - log_gamma(a);
}

// Series for P(a, x): sum_{n>=0} x^n / (a (a+1) ... (a+n)).
double lower_series(double a, double x) {
    double term = 1.0 / a;
    double sum = term;
    for (int n = 1; n < kMaxTerms; ++n) {
        term *= x / (a + n);
        sum += term;
        if (std::fabs(term) < std::fabs(sum) * kEps) break;
    }
    return sum * std::exp(log_prefactor(a, x));
}

// Continued fraction for Q(a, x) (modified Lentz), valid and fast for x >= a + 1.
double upper_fraction(double a, double x) {
    double b = x + 1.0 - a;
    double c = 1.0 / kTiny;
    double d = 1.0 / b;
    double h = d;
    for (int i = 1; i < kMaxTerms; ++i) {
        const double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (std::fabs(d) < kTiny) d = kTiny;
        c = b + an / c;
        if (std::fabs(c) < kTiny) c = kTiny;
        d = 1.0 / d;
        const double step = d * c;
        h *= step;
        if (std::fabs(step - 1.0) < kEps) break;
    }
    return h * std::exp(log_prefactor(a, x));
}

}  // namespace

double regularized_lower_gamma(double a, double x) {
    if (x <= 0) return 0.0;
    if (std::isinf(x)) return 1.0;
    return x < a + 1.0 ? lower_series(a, x) : 1.0 - upper_fraction(a, x);
}

double regularized_upper_gamma(double a, double x) {
    if (x <= 0) return 1.0;
    if (std::isinf(x)) return 0.0;
    return x < a + 1.0 ? 1.0 - lower_series(a, x) : upper_fraction(a, x);
}

double approximate_normal_upper_quantile(double q) {
    // Abramowitz & Stegun 26.2.23.
    if (q > 0.5) return -approximate_normal_upper_quantile(1.0 - q);
    const double t = std::sqrt(-2.0 * std::log(q));
    return t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
                   (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
}

double inverse_regularized_upper_gamma(double a, double q) {
    if (q <= 0) return std::numeric_limits<double>::infinity();
    if (q >= 1) return 0.0;
    // Starting point: Wilson-Hilferty for a >= 1, the small-a power law / exponential tail
    // otherwise.
    double x;
    if (a >= 1.0) {
        const double z = approximate_normal_upper_quantile(q);
        const double c = 1.0 - 1.0 / (9.0 * a) + z / (3.0 * std::sqrt(a));
        x = a * c * c * c;
        if (!(x > 0)) x = a * 1e-3;
    } else {
        const double p = 1.0 - q;
        const double t = 1.0 - a * (0.253 + a * 0.12);
        x = p < t ? std::pow(p / t, 1.0 / a) : 1.0 - std::log(1.0 - (p - t) / (1.0 - t));
        if (!(x > 0)) x = std::numeric_limits<double>::min();
    }
    // Q decreases in x: f(x) = Q(a, x) - q > 0 means x is too small.
    double lo = 0.0;
    double hi = std::numeric_limits<double>::infinity();
    for (int iter = 0; iter < 400; ++iter) {
        const double f = regularized_upper_gamma(a, x) - q;
        if (f == 0) return x;
        if (f > 0)
            lo = x;
        else
            hi = x;
        const double density = std::exp((a - 1.0) * std::log(x) - x - log_gamma(a));
        double next = std::numeric_limits<double>::quiet_NaN();
        if (density > 0 && std::isfinite(density)) {
            const double t = -f / density;                 // f / f', with f' = -density
            const double curvature = (a - 1.0) / x - 1.0;  // f'' / f'
            const double denom = 1.0 - 0.5 * t * curvature;
            next = x - (denom > 0.5 ? t / denom : t);
        }
        if (std::isfinite(next) && std::fabs(next - x) <= 1e-15 * x) return next;
        if (!(next > lo && next < hi)) {
            next = std::isinf(hi) ? std::max(2.0 * x, x + 1.0) : 0.5 * (lo + hi);
        }
        if (std::isfinite(hi) && hi - lo <= 1e-15 * hi) return 0.5 * (lo + hi);
        x = next;
    }
    return x;
}

}  // namespace gradcodec
