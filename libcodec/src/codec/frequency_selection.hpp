#pragma once
// Which transform coefficients the frequency codecs (fft, dct) keep. Coefficients are ranked
// by a non-negative score across every chunk of the tensor at once: a per-chunk quota would
// spend scalars on quiet chunks that loud chunks need more.
#include <cstdint>
#include <span>
#include <vector>

#include "common/scratch.hpp"

namespace gradcodec {

enum class FrequencySelector : std::uint8_t { topk, sidco, dgc };

// The exact rule: rank by score descending, ties by lower index, and keep the shortest
// prefix of that ranking whose weight reaches `target` (all of them when the total weight
// is below it). Weights are 1 or 2: `singles` lists, ascending, the coefficients that weigh
// 1. Returns ascending indices.
ScratchVector<std::uint64_t> select_by_weight(std::span<const float> scores,
                                              std::span<const std::uint64_t> singles,
                                              std::uint64_t target);

// The estimating selectors (SIDCo, DGC) keep about `density` of the coefficients; topk keeps
// exactly max(1, ceil(density·size)). Returns ascending indices.
ScratchVector<std::uint64_t> select_coefficients(FrequencySelector selector,
                                                 std::span<const float> scores, double density);

}  // namespace gradcodec
