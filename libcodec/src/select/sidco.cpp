#include "select/sidco.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "common/scratch.hpp"
#include "fit/distribution.hpp"
#include "select/magnitude_scan.hpp"
#include "select/radix_cut.hpp"
#include "select/threshold.hpp"

namespace gradcodec {
namespace {

// A double threshold as the float t with (|x| > t) == (|x| > eta) for every float |x|: the
// largest float <= eta.
float float_threshold(double eta) {
    if (!(eta > 0)) return 0.0f;
    if (eta >= static_cast<double>(std::numeric_limits<float>::max())) {
        return std::numeric_limits<float>::infinity();
    }
    float t = static_cast<float>(eta);
    if (static_cast<double>(t) > eta) t = std::nextafter(t, 0.0f);
    return t;
}

DistFit first_fit(std::span<const float> x, Distribution d) {
    if (d == Distribution::gamma) return fit_gamma(log_stats(x), x.size());
    const TailStats s = tail_stats(x, -1.0f);
    return d == Distribution::exp ? fit_exp(s) : fit_gpareto(s);
}

// One later stage: over `cur`, the magnitudes above the last threshold (summed in `s`), the
// next threshold min(cur) + Q(fit(cur - min(cur)), per); none when the stages should stop,
// because nothing is above or cur already holds no more than the target.
// (ours) Each stage aims at the density still missing, from the count it actually has:
// per = (target / |cur|)^(1 / stages left). The reference's fixed per = r^(1/(M-1)) lets the
// errors of early stages compound; here the last stage asks its fit for exactly the fraction
// of cur that the target needs, a moderate quantile that fits get right.
std::optional<double> stage_threshold(const TailStats& s, Distribution d, double target,
                                      int stages_left) {
    if (s.count == 0) return std::nullopt;
    const double tmin = s.min;
    const DistFit f = d == Distribution::exp ? fit_exp(s, tmin) : fit_gpareto(s, tmin);
    const double per = std::pow(target / static_cast<double>(s.count), 1.0 / stages_left);
    if (per >= 1.0) return std::nullopt;
    return tmin + tail_quantile(f, per);
}

// Stages 2..M over `tail` (the magnitudes above the first-stage threshold eta1). Stage j keeps
// cur = {a > eta}, and sets eta = min(cur) + Q(fit(cur - min(cur)), per_j).
double staged_threshold(std::span<const float> tail, double eta1, int stages, double density,
                        std::uint64_t n, Distribution d) {
    const double target = density * static_cast<double>(n);
    double eta = eta1;
    ScratchVector<float> work;  // a shrunk copy of the current set, once it halves
    std::span<const float> cur = tail;
    for (int stage = 1; stage < stages; ++stage) {
        const TailStats s = tail_stats(cur, float_threshold(eta));
        const std::optional<double> next_eta = stage_threshold(s, d, target, stages - stage);
        if (!next_eta) break;
        eta = *next_eta;
        if (2 * s.count < cur.size()) {
            ScratchVector<float> next;
            next.reserve(s.count);
            gather_magnitudes_at_least(cur, bits_above(float_threshold(s.min)), next);
            // gather keeps > s.min; the minimum itself is below the new eta.
            work = std::move(next);
            cur = work;
        }
    }
    return eta;
}

double log_distance(std::uint64_t count, double target) {
    if (count == 0) return std::numeric_limits<double>::infinity();
    return std::fabs(std::log(static_cast<double>(count) / target));
}

// The stage count asked for; or, with stages=auto, the first of 1..bound whose count lands in
// the accepted band around `target`, else the one whose count is nearest it.
template <class Attempt>
SidcoThreshold choose_stages(const SidcoParams& p, double target, Attempt&& attempt) {
    if (p.stages > 1) return attempt(p.stages);
    SidcoThreshold best;
    double best_distance = std::numeric_limits<double>::infinity();
    for (int m = 1; m <= sidco_auto_stage_bound(p.density); ++m) {
        const SidcoThreshold t = attempt(m);
        const double ratio = static_cast<double>(t.count) / target;
        if (ratio >= kSidcoAcceptLow && ratio <= kSidcoAcceptHigh) return t;
        const double d = log_distance(t.count, target);
        if (m == 1 || d < best_distance) {
            best = t;
            best_distance = d;
        }
    }
    return best;
}

void merge(TailStats& into, const TailStats& part) {
    if (part.count == 0) return;
    into.min = into.count == 0 ? part.min : std::min(into.min, part.min);
    into.count += part.count;
    into.sum += part.sum;
    into.sum_squares += part.sum_squares;
}

TailStats group_tail_stats(const ScorePasses& passes, float above) {
    TailStats total;
    passes([&](std::span<const float> x, const ElementWeights&) {
        merge(total, tail_stats(x, above));
    });
    return total;
}

DistFit group_first_fit(const ScorePasses& passes, std::uint64_t n, Distribution d) {
    if (d == Distribution::gamma) {
        LogStats total;
        passes([&](std::span<const float> x, const ElementWeights&) {
            const LogStats part = log_stats(x);
            total.nonzero += part.nonzero;
            total.sum += part.sum;
            total.sum_log += part.sum_log;
        });
        return fit_gamma(total, n);
    }
    const TailStats s = group_tail_stats(passes, -1.0f);
    return d == Distribution::exp ? fit_exp(s) : fit_gpareto(s);
}

// staged_threshold with each stage's sums taken over the group in one pass.
double group_staged_threshold(const ScorePasses& passes, double eta1, int stages, double density,
                              std::uint64_t n, Distribution d) {
    const double target = density * static_cast<double>(n);
    double eta = eta1;
    for (int stage = 1; stage < stages; ++stage) {
        const std::optional<double> next_eta = stage_threshold(
            group_tail_stats(passes, float_threshold(eta)), d, target, stages - stage);
        if (!next_eta) break;
        eta = *next_eta;
    }
    return eta;
}

}  // namespace

SidcoThreshold group_sidco_threshold(const ScorePasses& passes, std::uint64_t n,
                                     const SidcoParams& p) {
    SidcoThreshold out;
    if (n == 0) return out;
    const DistFit f1 = group_first_fit(passes, n, p.dist);
    const auto count_above = [&](float t) { return group_count_at_least(passes, bits_above(t)); };
    if (p.stages == 1 || p.density >= kSidcoFirstDensity) {
        out.threshold = float_threshold(tail_quantile(f1, p.density));
        out.count = count_above(out.threshold);
        return out;
    }
    const double eta1 = tail_quantile(f1, kSidcoFirstDensity);
    const double target = p.density * static_cast<double>(n);
    auto attempt = [&](int stages) {
        SidcoThreshold t;
        t.stages = stages;
        const double eta = stages == 1
                               ? tail_quantile(f1, p.density)
                               : group_staged_threshold(passes, eta1, stages, p.density, n, p.dist);
        t.threshold = float_threshold(std::max(eta, eta1));
        t.count = count_above(t.threshold);
        return t;
    };
    return choose_stages(p, target, attempt);
}

int sidco_auto_stage_bound(double density) {
    const int b = static_cast<int>(std::ceil(std::log(density) / std::log(0.5)));
    return std::clamp(b, 2, kSidcoMaxStages);
}

SidcoThreshold sidco_threshold(std::span<const float> x, const SidcoParams& p) {
    SidcoThreshold out;
    if (x.empty()) return out;
    const DistFit f1 = first_fit(x, p.dist);
    const bool single = p.stages == 1 || p.density >= kSidcoFirstDensity;
    if (single) {
        out.threshold = float_threshold(tail_quantile(f1, p.density));
        out.count = count_at_least(x, bits_above(out.threshold));
        return out;
    }
    const double eta1 = tail_quantile(f1, kSidcoFirstDensity);
    ScratchVector<float> tail;
    tail.reserve(x.size() / 3);  // about a quarter passes the first stage
    gather_magnitudes_at_least(x, bits_above(float_threshold(eta1)), tail);
    const double target = p.density * static_cast<double>(x.size());
    auto attempt = [&](int stages) {
        SidcoThreshold t;
        t.stages = stages;
        const double eta = stages == 1
                               ? tail_quantile(f1, p.density)
                               : staged_threshold(tail, eta1, stages, p.density, x.size(), p.dist);
        t.threshold = float_threshold(std::max(eta, eta1));
        // Every kept element is above eta1, so counting over the tail is exact.
        t.count = count_at_least(tail, bits_above(t.threshold));
        return t;
    };
    return choose_stages(p, target, attempt);
}

Selection select_sidco(std::span<const float> x, const SidcoParams& params) {
    return select_above(x, sidco_threshold(x, params).threshold);
}

}  // namespace gradcodec
