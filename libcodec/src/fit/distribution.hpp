#pragma once
// Fitted models of magnitudes and their tail quantiles: the estimators of SIDCo
// (docs/algorithms.md §6). Degenerate samples (empty, all zero, constant) give point masses, whose
// quantile is the point itself, so a strict |x| > eta keeps none of the equal values.
#include <cstdint>

#include "fit/magnitude_stats.hpp"
#include "gradcodec/fit.hpp"

namespace gradcodec {

struct DistFit {
    Distribution dist = Distribution::exp;
    double shape = 0;          // gpareto: xi; gamma: alpha (+inf: a point mass at `scale`)
    double scale = 0;          // exp: mean; gpareto: sigma; gamma: beta (point mass: the value)
    double zero_fraction = 0;  // gamma only: the mass at exactly 0
};

// On magnitudes minus `offset` (the peaks-over-threshold stages fit x - tmin).
DistFit fit_exp(const TailStats& s, double offset = 0);
DistFit fit_gpareto(const TailStats& s, double offset = 0);
DistFit fit_gamma(const LogStats& s, std::uint64_t total);

// The x >= 0 with P(A > x) = p, for p in (0, 1].
double tail_quantile(const DistFit& f, double p);

// P(A <= x), and its left limit P(A < x) (they differ only at a point mass).
double fitted_cdf(const DistFit& f, double x);
double fitted_cdf_below(const DistFit& f, double x);

}  // namespace gradcodec
