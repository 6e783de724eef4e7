#pragma once
// SIDCo (Abdelmoniem et al., MLSys'21): the threshold read off a fitted sparsity-inducing
// distribution, in one or several peaks-over-threshold stages (docs/algorithms.md §6).
#include <cstdint>
#include <span>

#include "gradcodec/fit.hpp"
#include "select/cut.hpp"
#include "select/selection.hpp"

namespace gradcodec {

struct SidcoParams {
    Distribution dist = Distribution::exp;  // gamma: gamma first stage, GP after (SIDCo-GP)
    double density = 0.01;                  // in (0, 1]
    int stages = 0;                         // 1..kSidcoMaxStages, or 0 = auto
};

inline constexpr int kSidcoMaxStages = 16;
inline constexpr double kSidcoFirstDensity = 0.25;  // the first stage's density when staged
inline constexpr double kSidcoAcceptLow = 0.8;      // auto accepts achieved/target in
inline constexpr double kSidcoAcceptHigh = 1.25;    // [0.8, 1.25]

// The largest stage count `auto` tries: max(2, ceil(ln density / ln 0.5)), capped at 16.
int sidco_auto_stage_bound(double density);

struct SidcoThreshold {
    float threshold = 0;      // keep |x| > threshold
    int stages = 1;           // stages used
    std::uint64_t count = 0;  // elements it keeps
};

// stages = auto tries 1, 2, ... up to the bound and stops at the first whose achieved/target
// density lies in [0.8, 1.25]; when none does it keeps the one nearest the target (in
// |ln ratio|, ties to fewer stages). No state outlives the call.
SidcoThreshold sidco_threshold(std::span<const float> x, const SidcoParams& params);

// SIDCo over a group of n elements in all, as if they were one tensor: one fit on the
// group's magnitudes, each stage a pass over the group's sums, so the group is never held.
// Weights are ignored: SIDCo counts elements.
SidcoThreshold group_sidco_threshold(const ScorePasses& passes, std::uint64_t n,
                                     const SidcoParams& params);

Selection select_sidco(std::span<const float> x, const SidcoParams& params);

}  // namespace gradcodec
