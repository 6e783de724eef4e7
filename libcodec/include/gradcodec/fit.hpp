#pragma once
// SIDCo's distribution fits of a tensor's magnitudes, as `gradcodec fit` reports them: the
// fitted parameters, the Kolmogorov-Smirnov distance of each fit on |x|, the threshold each
// fit gives for a target density and the density that threshold achieves, beside the exact
// top-k threshold (docs/algorithms.md §6 and §4).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Everything declared here is the shared library's API; the rest of it stays hidden.
#pragma GCC visibility push(default)
namespace gradcodec {

// Models of |x|: exponential (Laplace on x), generalized Pareto, gamma (double gamma on x).
enum class Distribution : std::uint8_t { exp = 1, gpareto = 2, gamma = 3 };

std::string_view distribution_name(Distribution d);  // "exp", "gpareto", "gamma"
std::optional<Distribution> parse_distribution(std::string_view name);

struct FitOptions {
    int stages = 0;           // SIDCo stages for the thresholds: 0 = auto (the codec's default)
    std::string tensor_name;  // for error messages
};

struct FitThreshold {
    double density = 0;    // the target
    double threshold = 0;  // SIDCo's eta: the estimator keeps |x| > eta
    double achieved = 0;   // count(|x| > eta) / n
    int stages = 1;        // stages used
};

struct DistributionFit {
    Distribution dist = Distribution::exp;
    // Single-stage fit on all of |x|, in a fixed order per distribution:
    //   exp: scale (= mean |x|); gpareto: shape (xi), scale (sigma);
    //   gamma: shape (alpha), scale (beta), zero_fraction (mass at 0, left out of the fit).
    std::vector<std::pair<std::string, double>> params;
    double ks = 0;  // sup |F_empirical(|x|) - F_fit(|x|)|, exact over every element
    std::vector<FitThreshold> thresholds;  // one per requested density, in order
};

struct TopkThreshold {
    double density = 0;
    double threshold = 0;  // the k-th largest |x|, k = max(1, ceil(density * n))
};

struct FitReport {
    std::uint64_t elements = 0;
    std::vector<DistributionFit> fits;  // one per requested distribution, in order
    std::vector<TopkThreshold> topk;    // one per requested density, in order
};

// Throws Error(bad_input) naming options.tensor_name on a non-finite element, and
// Error(usage) on a density outside (0, 1]. An empty tensor gives elements = 0 and no fits.
FitReport fit_tensor(std::span<const float> x, const std::vector<Distribution>& dists,
                     const std::vector<double>& densities, const FitOptions& options = {});

}  // namespace gradcodec
#pragma GCC visibility pop
