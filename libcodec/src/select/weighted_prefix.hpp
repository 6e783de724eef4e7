#pragma once
// The selection rule of the frequency codecs, whose coefficients carry one or two scalars:
// the shortest prefix, by weight, of a ranking by magnitude.
#include <cstdint>
#include <span>

#include "common/scratch.hpp"
#include "common/vector_path.hpp"

namespace gradcodec {

// Ranks by magnitude pattern descending, ties by lower index, and keeps the shortest prefix
// whose weight reaches `target` (0 < target <= the total weight). Weights are 2, or 1 for the
// indices in `singles` (ascending). Returns ascending indices. Runs on the calling thread.
ScratchVector<std::uint64_t> weighted_prefix(std::span<const float> scores,
                                             std::span<const std::uint64_t> singles,
                                             std::uint64_t target);

// Where such a prefix ends: it holds every element above `bits`, and those at `bits` in index
// order until they add `ties` more weight.
struct WeightCut {
    std::uint32_t bits;
    std::uint64_t ties;
};

// The cut found among candidates known to hold the whole prefix (every element at or above
// some pattern): their magnitude patterns, and those of the singles among them. Every path
// finds the same cut; tests compare them.
WeightCut weighted_cut(std::span<const std::uint32_t> candidate_bits,
                       std::span<const std::uint32_t> single_bits, std::uint64_t target,
                       VectorPath path = widest_vector_path());

}  // namespace gradcodec
