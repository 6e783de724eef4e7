// gradcodec::fit_tensor, the library side of `gradcodec fit`.
#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "fit/distribution.hpp"
#include "fit/ks_distance.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/fit.hpp"
#include "select/sidco.hpp"
#include "select/topk.hpp"

namespace gradcodec {
namespace {

DistFit single_stage_fit(std::span<const float> x, Distribution d) {
    switch (d) {
        case Distribution::exp:
            return fit_exp(tail_stats(x, -1.0f));
        case Distribution::gpareto:
            return fit_gpareto(tail_stats(x, -1.0f));
        case Distribution::gamma:
            return fit_gamma(log_stats(x), x.size());
    }
    return {};
}

std::vector<std::pair<std::string, double>> named_params(const DistFit& f) {
    switch (f.dist) {
        case Distribution::exp:
            return {{"scale", f.scale}};
        case Distribution::gpareto:
            return {{"shape", f.shape}, {"scale", f.scale}};
        case Distribution::gamma:
            return {{"shape", f.shape}, {"scale", f.scale}, {"zero_fraction", f.zero_fraction}};
    }
    return {};
}

// |x| in ascending order. Non-negative floats order like their bit patterns, so an LSD radix
// sort of the 31-bit patterns (three passes of 11 bits) does it in linear time.
std::vector<float> sorted_magnitudes(std::span<const float> x) {
    constexpr unsigned kBits = 11;
    constexpr std::size_t kBuckets = std::size_t{1} << kBits;
    std::vector<std::uint32_t> a(x.size()), b(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        a[i] = std::bit_cast<std::uint32_t>(x[i]) & 0x7fffffffu;
    for (unsigned shift = 0; shift < 32; shift += kBits) {
        std::vector<std::size_t> start(kBuckets + 1, 0);
        for (const std::uint32_t v : a) ++start[((v >> shift) & (kBuckets - 1)) + 1];
        for (std::size_t k = 1; k <= kBuckets; ++k) start[k] += start[k - 1];
        for (const std::uint32_t v : a) b[start[(v >> shift) & (kBuckets - 1)]++] = v;
        a.swap(b);
    }
    std::vector<float> out(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) out[i] = std::bit_cast<float>(a[i]);
    return out;
}

}  // namespace

std::string_view distribution_name(Distribution d) {
    switch (d) {
        case Distribution::exp:
            return "exp";
        case Distribution::gpareto:
            return "gpareto";
        case Distribution::gamma:
            return "gamma";
    }
    return "?";
}

std::optional<Distribution> parse_distribution(std::string_view name) {
    for (const Distribution d : {Distribution::exp, Distribution::gpareto, Distribution::gamma})
        if (distribution_name(d) == name) return d;
    return std::nullopt;
}

FitReport fit_tensor(std::span<const float> x, const std::vector<Distribution>& dists,
                     const std::vector<double>& densities, const FitOptions& options) {
    for (const double d : densities) {
        if (!(d > 0 && d <= 1)) {
            fail(ErrorKind::usage,
                 options.tensor_name + ": density " + std::to_string(d) + " is outside (0, 1]");
        }
    }
    if (options.stages < 0 || options.stages > kSidcoMaxStages) {
        fail(ErrorKind::usage, "stages must be 0 (auto) or 1.." + std::to_string(kSidcoMaxStages));
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (!std::isfinite(x[i])) {
            fail(ErrorKind::bad_input, options.tensor_name + ": element " + std::to_string(i) +
                                           " is not finite; fits need finite values");
        }
    }
    FitReport report;
    report.elements = x.size();
    if (x.empty()) return report;
    const std::vector<float> sorted = sorted_magnitudes(x);
    const double n = static_cast<double>(x.size());
    for (const Distribution d : dists) {
        DistributionFit fit;
        fit.dist = d;
        const DistFit f = single_stage_fit(x, d);
        fit.params = named_params(f);
        fit.ks = ks_distance(sorted, f);
        for (const double density : densities) {
            const SidcoThreshold t = sidco_threshold(x, {d, density, options.stages});
            fit.thresholds.push_back(
                {density, t.threshold, static_cast<double>(t.count) / n, t.stages});
        }
        report.fits.push_back(std::move(fit));
    }
    for (const double density : densities) {
        // The k-th largest is sorted[n - k]: no second select needed.
        const std::uint64_t k = topk_count(x.size(), density);
        report.topk.push_back({density, sorted[x.size() - k]});
    }
    return report;
}

}  // namespace gradcodec
