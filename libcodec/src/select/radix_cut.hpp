#pragma once
// The exact weighted top-k of a group of tensors that is never held whole: a radix select
// over the magnitude bit patterns, one pass for a histogram of the top 16 bits, one for the
// low 16 bits inside the bucket holding the cut. Memory: the two histograms.
#include <cstdint>

#include "select/cut.hpp"

namespace gradcodec {

// The cut keeping the shortest prefix, in the ranking by magnitude (ties to the lower tensor,
// then index), whose weight reaches `target`; everything when the group weighs less.
// `passes` is called twice.
MagnitudeCut group_topk_cut(const ScorePasses& passes, std::uint64_t target);

// Elements (over the whole group) whose magnitude pattern is at least `lo`.
std::uint64_t group_count_at_least(const ScorePasses& passes, std::uint32_t lo);

}  // namespace gradcodec
