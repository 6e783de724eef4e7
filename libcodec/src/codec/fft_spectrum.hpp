#pragma once
// The layout of fft's chunked spectrum, and the score of a bin, shared by the encoder's paths.
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <complex>
#include <cstdint>
#include <span>

#include "codec/frequency_codec.hpp"
#include "common/scratch.hpp"
#include "transform/fft_backend.hpp"

namespace gradcodec {

// Where each bin of a chunked spectrum lives. Bins are numbered densely across chunks
// (bin g is bin g mod bins of chunk g div bins) for positions; in memory each full chunk
// starts at an even stride so every chunk stays 16-byte aligned for FFTW.
struct SpectrumLayout {
    explicit SpectrumLayout(const ChunkLayout& c)
        : chunks(c),
          bins(r2c_bins(c.chunk)),
          stride(bins + (bins & 1)),
          tail_bins(c.tail != 0 ? r2c_bins(c.tail) : 0) {}

    std::uint64_t bin_count() const { return chunks.full * bins + tail_bins; }
    // Scalars in all bins: two per bin, one per real bin.
    std::uint64_t total_weight() const {
        const auto real_bins = [](std::uint64_t len) { return len == 0 ? 0 : 2 - len % 2; };
        return 2 * bin_count() - chunks.full * real_bins(chunks.chunk) - real_bins(chunks.tail);
    }
    std::uint64_t storage() const { return chunks.full * stride + tail_bins; }
    // The factor on the tail's bin scores, chunk/tail: by Parseval a score is then the energy
    // per scalar its bin restores, on the scale of a full chunk's.
    float tail_score_scale() const {
        return static_cast<float>(static_cast<double>(chunks.chunk) /
                                  static_cast<double>(chunks.tail));
    }
    std::uint64_t slot(std::uint64_t g) const { return g / bins * stride + g % bins; }
    // The scalars that the bins `kept` (ascending, below bin_count()) carry: one per real bin
    // (DC and, for an even length, Nyquist), two per other. The chunk is followed as the bins
    // ascend, so no division per bin.
    std::uint64_t scalars_of(std::span<const std::uint64_t> kept) const {
        const auto nyquist_of = [&](std::uint64_t len) { return len % 2 == 0 ? len / 2 : bins; };
        std::uint64_t first = 0, next_chunk = chunks.full != 0 ? 1 : 0;
        std::uint64_t nyquist = nyquist_of(chunks.full != 0 ? chunks.chunk : chunks.tail);
        std::uint64_t scalars = 0;
        for (const std::uint64_t g : kept) {
            while (g >= first + bins) {
                first += bins;
                nyquist = nyquist_of(next_chunk++ < chunks.full ? chunks.chunk : chunks.tail);
            }
            const std::uint64_t k = g - first;
            scalars += k == 0 || k == nyquist ? 1 : 2;
        }
        return scalars;
    }
    // The real bins, ascending.
    ScratchVector<std::uint64_t> real_bins() const {
        ScratchVector<std::uint64_t> out;
        const auto add = [&](std::uint64_t first, std::uint64_t len) {
            out.push_back(first);
            if (len % 2 == 0) out.push_back(first + len / 2);
        };
        out.reserve(2 * (chunks.full + 1));
        for (std::uint64_t c = 0; c < chunks.full; ++c) add(c * bins, chunks.chunk);
        if (chunks.tail != 0) add(chunks.full * bins, chunks.tail);
        return out;
    }

    ChunkLayout chunks;
    std::uint64_t bins;
    std::uint64_t stride;
    std::uint64_t tail_bins;
};

// re^2 + im^2 of the bin at p. Every scalar score goes through this one expression, so that a
// compiler that fuses multiply and add does so alike on every path.
inline float squared_magnitude(const float* p) {
    return p[0] * p[0] + p[1] * p[1];
}

// Squared magnitudes of `bins` bins, times `scale`. -O2 does not vectorise this loop (its
// trip count is not a multiple of the vector width), so SSE does four bins at a time.
inline void score_chunk(const std::complex<float>* spectrum, std::uint64_t bins, float scale,
                        float* scores) {
    const auto* p = reinterpret_cast<const float*>(spectrum);
    std::uint64_t k = 0;
#if defined(__SSE2__)
    const __m128 s = _mm_set1_ps(scale);
    for (; k + 4 <= bins; k += 4) {
        const __m128 a = _mm_loadu_ps(p + 2 * k);      // re0 im0 re1 im1
        const __m128 b = _mm_loadu_ps(p + 2 * k + 4);  // re2 im2 re3 im3
        const __m128 a2 = _mm_mul_ps(a, a);
        const __m128 b2 = _mm_mul_ps(b, b);
        const __m128 re = _mm_shuffle_ps(a2, b2, _MM_SHUFFLE(2, 0, 2, 0));
        const __m128 im = _mm_shuffle_ps(a2, b2, _MM_SHUFFLE(3, 1, 3, 1));
        _mm_storeu_ps(scores + k, _mm_mul_ps(_mm_add_ps(re, im), s));
    }
#endif
    for (; k < bins; ++k) {
        scores[k] = squared_magnitude(p + 2 * k) * scale;
    }
}

}  // namespace gradcodec
