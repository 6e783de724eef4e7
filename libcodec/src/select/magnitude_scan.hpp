#pragma once
// The scans every selector shares: count, collect indices or gather magnitudes of the elements
// whose magnitude pattern is at least `lo` (see selection.hpp for the ordering).
#include <cstdint>
#include <span>
#include <vector>

#include "common/scratch.hpp"

namespace gradcodec {

std::uint64_t count_at_least(std::span<const float> x, std::uint32_t lo);

// Appends to `out` the indices (ascending) of the first `cap` matches; returns the total count
// of matches, which may exceed `cap`.
std::uint64_t collect_at_least(std::span<const float> x, std::uint32_t lo, std::uint64_t cap,
                               ScratchVector<std::uint64_t>& out);

// Appends the indices of the matches when their number `count` is known (it must be exact):
// branch-free when matches are dense, where a branch per match would mispredict.
void collect_counted_at_least(std::span<const float> x, std::uint32_t lo, std::uint64_t count,
                              ScratchVector<std::uint64_t>& out);

// Appends |x_i| for every match, in index order.
void gather_magnitudes_at_least(std::span<const float> x, std::uint32_t lo,
                                ScratchVector<float>& out);

}  // namespace gradcodec
