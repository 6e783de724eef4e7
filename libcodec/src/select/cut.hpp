#pragma once
// A cut fixed outside one tensor: a group's exact top-k, a group's fitted or sampled
// threshold. Every element whose magnitude pattern is above `bits` is kept; the elements at
// exactly `bits` are kept in index order while the weight spent on them stays below
// `tie_budget`. A cut shared by several tensors is applied in their order, each tensor's
// spent weight taken off the budget before the next: ties go to the lower (tensor, index).
#include <cstdint>
#include <functional>
#include <limits>
#include <span>

#include "select/selection.hpp"

namespace gradcodec {

inline constexpr std::uint64_t kKeepAllTies = std::numeric_limits<std::uint64_t>::max();

struct MagnitudeCut {
    std::uint32_t bits = 0;
    std::uint64_t tie_budget = 0;  // 0: |x| > cut only; kKeepAllTies: |x| >= cut
};

// What an element weighs against a budget: 1, or with `doubled` 2 unless its index is in
// `singles` (ascending). The fft codec's complex bins carry two scalars, its real bins one.
struct ElementWeights {
    bool doubled = false;
    std::span<const std::uint64_t> singles;
};

// The kept indices (ascending); `spent` grows by the weight of the ties kept.
Selection select_with_cut(std::span<const float> x, const MagnitudeCut& cut,
                          const ElementWeights& weights, std::uint64_t& spent);

// One pass over a group's scores: calls `visit` once per tensor, in group order.
using ScoreVisitor = std::function<void(std::span<const float>, const ElementWeights&)>;
using ScorePasses = std::function<void(const ScoreVisitor& visit)>;

}  // namespace gradcodec
