#pragma once
// random-k's positions: k distinct positions of [0, n) drawn from a seed by Floyd's algorithm
// (format-spec/codec-randomk.md §2), in increasing order. The encoder and every decoder draw
// them the same way, so a payload carries the seed instead of the positions.
#include <cstdint>

#include "common/scratch.hpp"

namespace gradcodec {

// k <= n. Uses n/8 bytes of working memory besides the k positions.
ScratchVector<std::uint64_t> draw_random_positions(std::uint64_t n, std::uint64_t k,
                                                   std::uint64_t seed);

}  // namespace gradcodec
