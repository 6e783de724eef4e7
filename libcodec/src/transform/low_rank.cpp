#include "transform/low_rank.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "common/parallel.hpp"
#include "common/seeded_random.hpp"

namespace gradcodec {
namespace {

// Rows (or columns) per piece of parallel work; the sums run in the same order for any split.
constexpr std::size_t kRowsPerPiece = 64;

// The start of the iteration: Q's entries uniform in [-1, 1), draw j·rank + r for Q[j][r].
ScratchVector<double> seeded_start(std::uint64_t cols, unsigned rank, std::uint64_t seed) {
    ScratchVector<double> q(cols * rank);
    for (std::uint64_t i = 0; i < q.size(); ++i)
        q[i] = std::ldexp(static_cast<double>(seeded_draw(seed, i) >> 40), -23) - 1.0;
    return q;
}

// The sketch widths of ranks 1..8 (2·rank + 2, always even) get kernels compiled for their
// width: the running sums stay in registers, two lanes of binary64 at a time. Each kernel sums
// every output in the same order as the generic one (increasing j for P, increasing i for Q),
// one multiply and one add at a time (-ffp-contract=off, and a lane is rounded as a scalar
// is): the factors are the same bits whichever kernel runs.
template <class Kernel>
void with_width(unsigned width, Kernel&& kernel) {
    switch (width) {
        case 4:
            return kernel(std::integral_constant<unsigned, 4>{});
        case 6:
            return kernel(std::integral_constant<unsigned, 6>{});
        case 8:
            return kernel(std::integral_constant<unsigned, 8>{});
        case 10:
            return kernel(std::integral_constant<unsigned, 10>{});
        case 12:
            return kernel(std::integral_constant<unsigned, 12>{});
        case 14:
            return kernel(std::integral_constant<unsigned, 14>{});
        case 16:
            return kernel(std::integral_constant<unsigned, 16>{});
        case 18:
            return kernel(std::integral_constant<unsigned, 18>{});
        default:
            return kernel(std::integral_constant<unsigned, 0>{});
    }
}

// Two binary64 lanes (GCC's and Clang's vector extension: SSE2 on x86-64, NEON on AArch64).
using Lanes = double __attribute__((vector_size(16)));
constexpr std::size_t kLanes = 2;

Lanes load_lanes(const double* at) {
    Lanes v;
    std::memcpy(&v, at, sizeof v);
    return v;
}

void store_lanes(double* at, Lanes v) {
    std::memcpy(at, &v, sizeof v);
}

// Rows [first, first + count) of P = M · Q; kWidth 0: the width is `width`.
template <unsigned kWidth>
void times_rows(const float* m, std::uint64_t cols, unsigned width, const double* q, double* p,
                std::size_t first, std::size_t count) {
    if constexpr (kWidth == 0) {
        for (std::size_t i = first; i < first + count; ++i) {
            double* out = p + i * width;
            std::fill(out, out + width, 0.0);
            const float* row = m + i * cols;
            for (std::uint64_t j = 0; j < cols; ++j) {
                const double v = row[j];
                const double* qj = q + j * width;
                for (unsigned r = 0; r < width; ++r) out[r] += v * qj[r];
            }
        }
    } else {
        // Two rows at a time share each load of Q's row.
        constexpr std::size_t kVectors = kWidth / kLanes;
        std::size_t i = first;
        for (; i + 2 <= first + count; i += 2) {
            Lanes a[kVectors] = {}, b[kVectors] = {};
            const float* row_a = m + i * cols;
            const float* row_b = row_a + cols;
            for (std::uint64_t j = 0; j < cols; ++j) {
                const double va = row_a[j], vb = row_b[j];
                const double* qj = q + j * kWidth;
#pragma GCC unroll 9
                for (std::size_t k = 0; k < kVectors; ++k) {
                    const Lanes qk = load_lanes(qj + k * kLanes);
                    a[k] += va * qk;
                    b[k] += vb * qk;
                }
            }
            for (std::size_t k = 0; k < kVectors; ++k) {
                store_lanes(p + i * kWidth + k * kLanes, a[k]);
                store_lanes(p + (i + 1) * kWidth + k * kLanes, b[k]);
            }
        }
        if (i < first + count) times_rows<0>(m, cols, kWidth, q, p, i, first + count - i);
    }
}

// P = M · Q.
void times(std::span<const float> m, std::uint64_t rows, std::uint64_t cols, unsigned rank,
           const ScratchVector<double>& q, ScratchVector<double>& p) {
    with_width(rank, [&](auto width) {
        parallel_pieces(rows, kRowsPerPiece, [&](std::size_t first, std::size_t count) {
            times_rows<width()>(m.data(), cols, rank, q.data(), p.data(), first, count);
        });
    });
}

// Columns [first, first + count) of Q = Mᵀ · P, summed over i in increasing order.
template <unsigned kWidth>
void transpose_times_columns(const float* m, std::uint64_t rows, std::uint64_t cols, unsigned width,
                             const double* p, double* q, std::size_t first, std::size_t count) {
    const unsigned l = kWidth ? kWidth : width;
    double* out = q + first * l;
    std::fill(out, out + count * l, 0.0);
    std::uint64_t i = 0;
    if constexpr (kWidth != 0) {
        // Four rows at a time: each Q[j][r] takes row i's term, then row i + 1's, ..., so the
        // running sums go to memory once per four rows instead of once per row.
        constexpr std::size_t kVectors = kWidth / kLanes;
        for (; i + 4 <= rows; i += 4) {
            const float* row = m + i * cols + first;
            const double* pi = p + i * kWidth;
            for (std::size_t j = 0; j < count; ++j) {
                const double v0 = row[j], v1 = row[cols + j], v2 = row[2 * cols + j],
                             v3 = row[3 * cols + j];
                double* qj = out + j * kWidth;
#pragma GCC unroll 9
                for (std::size_t k = 0; k < kVectors; ++k) {
                    const std::size_t r = k * kLanes;
                    Lanes sum = load_lanes(qj + r);
                    sum += v0 * load_lanes(pi + r);
                    sum += v1 * load_lanes(pi + kWidth + r);
                    sum += v2 * load_lanes(pi + std::size_t{2} * kWidth + r);
                    sum += v3 * load_lanes(pi + std::size_t{3} * kWidth + r);
                    store_lanes(qj + r, sum);
                }
            }
        }
    }
    for (; i < rows; ++i) {
        const float* row = m + i * cols + first;
        const double* pi = p + i * l;
        for (std::size_t j = 0; j < count; ++j) {
            const double v = row[j];
            for (unsigned r = 0; r < l; ++r) out[j * l + r] += v * pi[r];
        }
    }
}

// Q = Mᵀ · P, by blocks of columns so that every Q[j][r] sums over i in increasing order.
void transpose_times(std::span<const float> m, std::uint64_t rows, std::uint64_t cols,
                     unsigned rank, const ScratchVector<double>& p, ScratchVector<double>& q) {
    constexpr std::size_t kColumns = 256;
    with_width(rank, [&](auto width) {
        parallel_pieces(cols, kColumns, [&](std::size_t first, std::size_t count) {
            transpose_times_columns<width()>(m.data(), rows, cols, rank, p.data(), q.data(), first,
                                             count);
        });
    });
}

double column_norm(const ScratchVector<double>& p, std::uint64_t rows, unsigned rank, unsigned r) {
    double sum = 0;
    for (std::uint64_t i = 0; i < rows; ++i) sum += p[i * rank + r] * p[i * rank + r];
    return std::sqrt(sum);
}

// Gram-Schmidt on P's columns, each projected out twice ("twice is enough" keeps them
// orthogonal to working precision). A column that loses all but 1e-10 of its norm lies in the
// span of the ones before it (the matrix's rank is below the sketch's width): it becomes zero.
void orthonormalise(ScratchVector<double>& p, std::uint64_t rows, unsigned rank) {
    for (unsigned r = 0; r < rank; ++r) {
        const double before = column_norm(p, rows, rank, r);
        for (int pass = 0; pass < 2; ++pass) {
            for (unsigned s = 0; s < r; ++s) {
                double dot = 0;
                for (std::uint64_t i = 0; i < rows; ++i) dot += p[i * rank + r] * p[i * rank + s];
                for (std::uint64_t i = 0; i < rows; ++i) p[i * rank + r] -= dot * p[i * rank + s];
            }
        }
        const double after = column_norm(p, rows, rank, r);
        const double scale = after > 1e-10 * before && after > 0 ? 1.0 / after : 0.0;
        for (std::uint64_t i = 0; i < rows; ++i) p[i * rank + r] *= scale;
    }
}

// Eigen-decomposition of the symmetric L × L matrix `g` (row-major) by cyclic Jacobi
// rotations: g = V Λ Vᵀ. Returns V's columns ordered by decreasing eigenvalue, ties by index.
ScratchVector<double> eigenvectors_descending(ScratchVector<double> g, std::size_t l) {
    ScratchVector<double> v(l * l, 0.0);
    for (std::size_t i = 0; i < l; ++i) v[i * l + i] = 1.0;
    for (int sweep = 0; sweep < 64; ++sweep) {
        double off = 0, diagonal = 0;
        for (std::size_t i = 0; i < l; ++i) {
            diagonal += g[i * l + i] * g[i * l + i];
            for (std::size_t j = i + 1; j < l; ++j) off += g[i * l + j] * g[i * l + j];
        }
        if (off <= 1e-30 * diagonal || off == 0) break;
        for (std::size_t p = 0; p < l; ++p) {
            for (std::size_t q = p + 1; q < l; ++q) {
                const double apq = g[p * l + q];
                if (apq == 0) continue;
                const double theta = (g[q * l + q] - g[p * l + p]) / (2 * apq);
                const double t =
                    (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
                const double c = 1 / std::sqrt(t * t + 1), s = t * c;
                for (std::size_t k = 0; k < l; ++k) {  // g ← g · J
                    const double gkp = g[k * l + p], gkq = g[k * l + q];
                    g[k * l + p] = c * gkp - s * gkq;
                    g[k * l + q] = s * gkp + c * gkq;
                }
                for (std::size_t k = 0; k < l; ++k) {  // g ← Jᵀ · g
                    const double gpk = g[p * l + k], gqk = g[q * l + k];
                    g[p * l + k] = c * gpk - s * gqk;
                    g[q * l + k] = s * gpk + c * gqk;
                }
                for (std::size_t k = 0; k < l; ++k) {  // v ← v · J
                    const double vkp = v[k * l + p], vkq = v[k * l + q];
                    v[k * l + p] = c * vkp - s * vkq;
                    v[k * l + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    ScratchVector<std::size_t> order(l);
    for (std::size_t i = 0; i < l; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return g[a * l + a] > g[b * l + b]; });
    ScratchVector<double> sorted(l * l);
    for (std::size_t k = 0; k < l; ++k)
        for (std::size_t c = 0; c < l; ++c) sorted[k * l + c] = v[k * l + order[c]];
    return sorted;
}

// a (rows × l) times the first `rank` columns of v (l × l), into rows × rank.
ScratchVector<float> leading_columns(const ScratchVector<double>& a, std::uint64_t rows,
                                     std::size_t l, const ScratchVector<double>& v, unsigned rank) {
    ScratchVector<float> out(rows * rank);
    for (std::uint64_t i = 0; i < rows; ++i) {
        for (unsigned r = 0; r < rank; ++r) {
            double sum = 0;
            for (std::size_t k = 0; k < l; ++k) sum += a[i * l + k] * v[k * l + r];
            out[i * rank + r] = static_cast<float>(sum);
        }
    }
    return out;
}

}  // namespace

std::size_t sketch_width(unsigned rank, std::uint64_t rows, std::uint64_t cols) {
    return static_cast<std::size_t>(
        std::min<std::uint64_t>(2 * std::uint64_t{rank} + 2, std::min(rows, cols)));
}

LowRankFactors low_rank_factors(std::span<const float> m, std::uint64_t rows, std::uint64_t cols,
                                unsigned rank, unsigned iterations, std::uint64_t seed) {
    // Subspace iteration on a sketch wider than the rank (oversampling), then the best rank-R
    // approximation inside the sketch's range: it reaches the truncated SVD's error in far
    // fewer iterations than iterating R columns alone when singular values lie close together.
    const std::size_t l = sketch_width(rank, rows, cols);
    const auto width = static_cast<unsigned>(l);
    ScratchVector<double> omega = seeded_start(cols, width, seed);
    ScratchVector<double> u(rows * l);
    for (unsigned it = 0; it < iterations; ++it) {
        times(m, rows, cols, width, omega, u);
        orthonormalise(u, rows, width);
        transpose_times(m, rows, cols, width, u, omega);  // omega = Mᵀ U = Bᵀ, B = Uᵀ M
    }
    ScratchVector<double> gram(l * l, 0.0);  // B Bᵀ = Ωᵀ Ω
    for (std::uint64_t j = 0; j < cols; ++j)
        for (std::size_t a = 0; a < l; ++a)
            for (std::size_t b = 0; b < l; ++b)
                gram[a * l + b] += omega[j * l + a] * omega[j * l + b];
    const ScratchVector<double> v = eigenvectors_descending(std::move(gram), l);
    return {leading_columns(u, rows, l, v, rank), leading_columns(omega, cols, l, v, rank)};
}

void low_rank_product(std::span<const float> p, std::span<const float> q, std::uint64_t rows,
                      std::uint64_t cols, unsigned rank, std::span<float> out) {
    parallel_pieces(rows, kRowsPerPiece, [&](std::size_t first, std::size_t count) {
        for (std::size_t i = first; i < first + count; ++i) {
            const float* pi = p.data() + i * rank;
            for (std::uint64_t j = 0; j < cols; ++j) {
                const float* qj = q.data() + j * rank;
                double sum = 0;
                for (unsigned r = 0; r < rank; ++r)
                    sum += static_cast<double>(pi[r]) * static_cast<double>(qj[r]);
                out[i * cols + j] = static_cast<float>(sum);
            }
        }
    });
}

}  // namespace gradcodec
