// The candidate compaction of fft's transform-time selection: portable, and on AVX-512 with
// the compress instructions, 16 bins at a time.
#include <bit>
#include <cstring>

#include "codec/fft_candidates.hpp"
#include "select/selection.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GRADCODEC_X86_DISPATCH 1
#endif

namespace gradcodec {
namespace {

// Every bin is written before it is known to stay: no branch per bin.
std::size_t append_portable(const BinRun& run, std::size_t first, std::uint32_t floor,
                            const CandidateArrays& out, std::size_t m) {
    for (std::size_t k = first; k < run.count; ++k) {
        const std::uint32_t b = magnitude_bits(run.scores[k]);
        out.bins[m] = run.first_bin + k;
        out.bits[m] = b;
        std::memcpy(&out.values[m], &run.spectrum[k], sizeof(std::uint64_t));
        m += b >= floor ? 1 : 0;
    }
    return m;
}

#if defined(GRADCODEC_X86_DISPATCH)

// Compresses into registers and stores whole vectors: the compress-to-memory form is slow on
// some processors. Each store may write up to 16 entries past the new size.
__attribute__((target("avx512f"))) std::size_t append_avx512(const BinRun& run, std::uint32_t floor,
                                                             const CandidateArrays& out,
                                                             std::size_t m) {
    const __m512i magnitude = _mm512_set1_epi32(0x7fffffff);
    const __m512i floor_bits = _mm512_set1_epi32(static_cast<int>(floor));
    const __m512i lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i eight = _mm512_set1_epi64(8);
    std::size_t k = 0;
    for (; k + 16 <= run.count; k += 16) {
        const __m512i b = _mm512_and_si512(_mm512_loadu_si512(run.scores + k), magnitude);
        const __mmask16 keep = _mm512_cmpge_epu32_mask(b, floor_bits);
        if (keep == 0) continue;
        const auto low = static_cast<__mmask8>(keep);
        const auto high = static_cast<__mmask8>(keep >> 8);
        const auto low_count = static_cast<std::size_t>(std::popcount(static_cast<unsigned>(low)));
        _mm512_storeu_si512(out.bits + m, _mm512_maskz_compress_epi32(keep, b));
        const __m512i first =
            _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(run.first_bin + k)), lanes);
        _mm512_storeu_si512(out.bins + m, _mm512_maskz_compress_epi64(low, first));
        _mm512_storeu_si512(out.bins + m + low_count,
                            _mm512_maskz_compress_epi64(high, _mm512_add_epi64(first, eight)));
        const auto* pairs = reinterpret_cast<const std::uint64_t*>(run.spectrum + k);
        _mm512_storeu_si512(out.values + m,
                            _mm512_maskz_compress_epi64(low, _mm512_loadu_si512(pairs)));
        _mm512_storeu_si512(out.values + m + low_count,
                            _mm512_maskz_compress_epi64(high, _mm512_loadu_si512(pairs + 8)));
        m += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(keep)));
    }
    return append_portable(run, k, floor, out, m);
}

#endif

}  // namespace

bool cpu_supports(CompactPath path) {
#if defined(GRADCODEC_X86_DISPATCH)
    if (path == CompactPath::avx512) {
        static const bool yes = [] {
            __builtin_cpu_init();
            return __builtin_cpu_supports("avx512f") != 0;
        }();
        return yes;
    }
#endif
    return path == CompactPath::portable;
}

CompactPath fastest_compact_path() {
    return cpu_supports(CompactPath::avx512) ? CompactPath::avx512 : CompactPath::portable;
}

std::size_t append_candidates(CompactPath path, const BinRun& run, std::uint32_t floor,
                              const CandidateArrays& out, std::size_t size) {
#if defined(GRADCODEC_X86_DISPATCH)
    if (path == CompactPath::avx512 && cpu_supports(path))
        return append_avx512(run, floor, out, size);
#endif
    (void)path;
    return append_portable(run, 0, floor, out, size);
}

}  // namespace gradcodec
