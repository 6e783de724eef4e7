#pragma once
// PowerSGD's low-rank form (format-spec/codec-lowrank.md §2): a matrix M (rows × cols,
// row-major) as P · Qᵀ, P (rows × rank) with orthonormal columns and Q = Mᵀ · P (cols × rank).
// P spans the leading singular directions found by `iterations` rounds of subspace iteration
// on a sketch of sketch_width columns started at a seeded random matrix.
#include <cstdint>
#include <span>

#include "common/scratch.hpp"

namespace gradcodec {

struct LowRankFactors {
    ScratchVector<float> p;  // rows × rank, row-major
    ScratchVector<float> q;  // cols × rank, row-major
};

// The sketch's width: 2·rank + 2, at most min(rows, cols).
std::size_t sketch_width(unsigned rank, std::uint64_t rows, std::uint64_t cols);

LowRankFactors low_rank_factors(std::span<const float> m, std::uint64_t rows, std::uint64_t cols,
                                unsigned rank, unsigned iterations, std::uint64_t seed);

// out[i·cols + j] = Σ_r p[i·rank + r] · q[j·rank + r], summed in binary64 in increasing r, then
// rounded once to binary32: the same bits on every decoder. (A product of two binary32 values
// is exact in binary64, so a fused multiply-add gives the same sums.)
void low_rank_product(std::span<const float> p, std::span<const float> q, std::uint64_t rows,
                      std::uint64_t cols, unsigned rank, std::span<float> out);

}  // namespace gradcodec
