#pragma once
// Exact top-k by magnitude: a radix select over the magnitude bit patterns (histogram of the top
// 16 bits, then of the low 16 bits inside the bucket holding the k-th), then one compaction
// pass. Ties at the k-th magnitude go to the lower indices. No sort.
#include <cstdint>
#include <optional>
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

// select_topk of a tensor seen a piece at a time, in element order, holding only candidates:
// every element that might still be among the top k, with its value. Once k candidates are
// held, the k-th largest among them is a floor the final cut cannot fall below; a prune,
// whenever the candidates pass max(4k, 2^16), raises the floor and drops those under it, and
// only elements at or above the floor are taken from then on. The same selection and
// threshold as select_topk over the whole tensor.
class TopkStream {
  public:
    // `k` as select_topk takes it, capped at the tensor's size by the caller.
    explicit TopkStream(std::uint64_t k);
    // Elements [first, first + piece.size()), `first` continuing where the last piece ended.
    // Returns the index of the first non-finite value taken as a candidate, if any: the first
    // non-finite element of the tensor is always taken (nothing ranks above it before it).
    std::optional<std::uint64_t> add(std::span<const float> piece, std::uint64_t first);
    Selection finish();

  private:
    void prune(std::size_t prune_at);
    void keep_from_bucket_floor();
    TopkCut keep_top_k();
    std::uint64_t k_;
    std::uint32_t lo_ = 0;  // the least magnitude pattern a new element needs to be taken
    Selection held_;        // the candidates, in index order, with their values
};

}  // namespace gradcodec
