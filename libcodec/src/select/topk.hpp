#pragma once
// Exact top-k by magnitude: a radix select over the magnitude bit patterns (histogram of the top
// 16 bits, then of the low 16 bits inside the bucket holding the k-th), then one compaction
// pass. Ties at the k-th magnitude go to the lower indices. No sort.
#include <cstdint>
#include <span>

#include "select/selection.hpp"

namespace gradcodec {

// k = max(1, ceil(density * n)), capped at n (0 when n == 0). The product is rounded to 12
// significant digits first, so densities written in decimal (0.001 * 25e6) give the k the user
// means rather than one more.
std::uint64_t topk_count(std::uint64_t n, double density);

// Where the top k end: every magnitude pattern above `bits` is kept, and the first `ties` of
// the elements whose pattern equals `bits`.
struct TopkCut {
    std::uint32_t bits = 0;
    std::uint64_t ties = 0;
};

// k in 1..x.size().
TopkCut topk_cut(std::span<const float> x, std::uint64_t k);

// The k largest magnitudes (k capped at x.size(); k == 0 keeps nothing, threshold +inf).
Selection select_topk(std::span<const float> x, std::uint64_t k);

}  // namespace gradcodec
