#include "transform/low_rank.hpp"

#include <algorithm>
#include <cmath>

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

// P = M · Q.
void times(std::span<const float> m, std::uint64_t rows, std::uint64_t cols, unsigned rank,
           const ScratchVector<double>& q, ScratchVector<double>& p) {
    parallel_pieces(rows, kRowsPerPiece, [&](std::size_t first, std::size_t count) {
        for (std::size_t i = first; i < first + count; ++i) {
            double* out = p.data() + i * rank;
            std::fill(out, out + rank, 0.0);
            const float* row = m.data() + i * cols;
            for (std::uint64_t j = 0; j < cols; ++j) {
                const double v = row[j];
                const double* qj = q.data() + j * rank;
                for (unsigned r = 0; r < rank; ++r) out[r] += v * qj[r];
            }
        }
    });
}

// Q = Mᵀ · P, by blocks of columns so that every Q[j][r] sums over i in increasing order.
void transpose_times(std::span<const float> m, std::uint64_t rows, std::uint64_t cols,
                     unsigned rank, const ScratchVector<double>& p, ScratchVector<double>& q) {
    constexpr std::size_t kColumns = 256;
    parallel_pieces(cols, kColumns, [&](std::size_t first, std::size_t count) {
        double* out = q.data() + first * rank;
        std::fill(out, out + count * rank, 0.0);
        for (std::uint64_t i = 0; i < rows; ++i) {
            const float* row = m.data() + i * cols + first;
            const double* pi = p.data() + i * rank;
            for (std::size_t j = 0; j < count; ++j) {
                const double v = row[j];
                for (unsigned r = 0; r < rank; ++r) out[j * rank + r] += v * pi[r];
            }
        }
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
