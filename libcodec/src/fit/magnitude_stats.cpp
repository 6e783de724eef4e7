#include "fit/magnitude_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gradcodec {

double TailStats::variance() const {
    if (count < 2) return 0.0;
    const double c = static_cast<double>(count);
    const double v = (sum_squares - sum * sum / c) / (c - 1.0);
    return v > 0 ? v : 0.0;
}

namespace {

// Sums over one block of at most kBlock elements in float lanes; the caller adds them as
// doubles, so block sums stay accurate to ~1e-6 relative while the pass runs at memory speed.
constexpr std::size_t kBlock = 1024;

struct BlockSums {
    float sum = 0, squares = 0, min = std::numeric_limits<float>::infinity();
    std::uint32_t count = 0;
};

BlockSums block_sums_scalar(const float* v, std::size_t n, float above) {
    BlockSums b;
    for (std::size_t i = 0; i < n; ++i) {
        const float a = std::fabs(v[i]);
        if (!(a > above)) continue;
        b.sum += a;
        b.squares += a * a;
        ++b.count;
        b.min = std::min(b.min, a);
    }
    return b;
}

#if defined(__SSE2__)
// SSE2 is the x86-64 baseline; GCC does not vectorise the masked reductions by itself.
BlockSums block_sums(const float* v, std::size_t n, float above) {
    const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    const __m128 limit = _mm_set1_ps(above);
    __m128 s0 = _mm_setzero_ps(), s1 = _mm_setzero_ps();
    __m128 q0 = _mm_setzero_ps(), q1 = _mm_setzero_ps();
    __m128 m0 = _mm_set1_ps(std::numeric_limits<float>::infinity()), m1 = m0;
    __m128i c0 = _mm_setzero_si128(), c1 = _mm_setzero_si128();
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128 a0 = _mm_and_ps(_mm_loadu_ps(v + i), abs_mask);
        const __m128 a1 = _mm_and_ps(_mm_loadu_ps(v + i + 4), abs_mask);
        const __m128 in0 = _mm_cmpgt_ps(a0, limit);  // false for NaN
        const __m128 in1 = _mm_cmpgt_ps(a1, limit);
        const __m128 d0 = _mm_and_ps(a0, in0), d1 = _mm_and_ps(a1, in1);
        s0 = _mm_add_ps(s0, d0);
        s1 = _mm_add_ps(s1, d1);
        q0 = _mm_add_ps(q0, _mm_mul_ps(d0, d0));
        q1 = _mm_add_ps(q1, _mm_mul_ps(d1, d1));
        c0 = _mm_sub_epi32(c0, _mm_castps_si128(in0));
        c1 = _mm_sub_epi32(c1, _mm_castps_si128(in1));
        m0 = _mm_min_ps(m0,
                        _mm_or_ps(_mm_and_ps(in0, a0), _mm_andnot_ps(in0, _mm_set1_ps(INFINITY))));
        m1 = _mm_min_ps(m1,
                        _mm_or_ps(_mm_and_ps(in1, a1), _mm_andnot_ps(in1, _mm_set1_ps(INFINITY))));
    }
    alignas(16) float fs[4], fq[4], fm[4];
    alignas(16) std::uint32_t fc[4];
    _mm_store_ps(fs, _mm_add_ps(s0, s1));
    _mm_store_ps(fq, _mm_add_ps(q0, q1));
    _mm_store_ps(fm, _mm_min_ps(m0, m1));
    _mm_store_si128(reinterpret_cast<__m128i*>(fc), _mm_add_epi32(c0, c1));
    BlockSums b = block_sums_scalar(v + i, n - i, above);
    for (int j = 0; j < 4; ++j) {
        b.sum += fs[j];
        b.squares += fq[j];
        b.count += fc[j];
        b.min = std::min(b.min, fm[j]);
    }
    return b;
}
#else
BlockSums block_sums(const float* v, std::size_t n, float above) {
    return block_sums_scalar(v, n, above);
}
#endif

}  // namespace

TailStats tail_stats(std::span<const float> v, float above) {
    TailStats t;
    float smallest = std::numeric_limits<float>::infinity();
    for (std::size_t first = 0; first < v.size(); first += kBlock) {
        const BlockSums b = block_sums(v.data() + first, std::min(kBlock, v.size() - first), above);
        t.sum += b.sum;
        t.sum_squares += b.squares;
        t.count += b.count;
        smallest = std::min(smallest, b.min);
    }
    t.min = t.count ? smallest : 0.0f;
    return t;
}

LogStats log_stats(std::span<const float> v) {
    LogStats t;
    for (const float x : v) {
        const float a = std::fabs(x);
        if (a == 0) continue;
        ++t.nonzero;
        t.sum += a;
        t.sum_log += std::log(static_cast<double>(a));
    }
    return t;
}

}  // namespace gradcodec
