#pragma once
// The Kolmogorov-Smirnov distance between the empirical distribution of a sample and a fit.
#include <span>

#include "fit/distribution.hpp"

namespace gradcodec {

// `sorted` holds the magnitudes in ascending order. Exact: the supremum is taken at every
// distinct value, on both sides of each jump.
double ks_distance(std::span<const float> sorted, const DistFit& f);

}  // namespace gradcodec
