// The candidate compactions of fft's transform-time selection, of bins to candidates and of
// candidates to the kept bins: portable, and on AVX-512 with the compress instructions, 16 at
// a time; on AVX2 with compares and tables of lane permutations, 8 at a time.
#include <algorithm>
#include <bit>
#include <cstring>

#include "codec/fft_candidates.hpp"
#include "common/cpu_features.hpp"
#include "common/left_pack.hpp"
#include "select/selection.hpp"

namespace gradcodec {
namespace {

// Every bin is written before it is known to stay: no branch per bin. Inlined by force into
// the AVX2 path, which ends each run with it: called for the one bin left of a run of 129, it
// took 4.4% of an fft encode's samples, against 19.7% for the other 128.
__attribute__((always_inline)) inline std::size_t append_portable(const BinRun& run,
                                                                  std::size_t first,
                                                                  std::uint32_t floor,
                                                                  const CandidateArrays& out,
                                                                  std::size_t m) {
    const auto* parts = reinterpret_cast<const float*>(run.spectrum);
    for (std::size_t k = first; k < run.count; ++k) {
        const float score =
            run.scores != nullptr ? run.scores[k] : squared_magnitude(parts + 2 * k);
        const std::uint32_t b = magnitude_bits(score);
        out.bins[m] = run.first_bin + k;
        out.bits[m] = b;
        std::memcpy(&out.values[m], &run.spectrum[k], sizeof(std::uint64_t));
        m += b >= floor ? 1 : 0;
    }
    return m;
}

// Candidates [begin, end). Every candidate is written before it is known to stay (a real bin's
// Im is overwritten by the next bin): no branch per candidate.
KeptArrays keep_portable(const CandidateView& in, std::size_t begin, std::size_t end,
                         std::uint32_t cut_bits, std::uint64_t& ties, KeptArrays out) {
    std::size_t k_out = out.bin_count, v_out = out.value_count;
    for (std::size_t j = begin; j < end; ++j) {
        const bool real = (in.bins[j] & kRealBin) != 0;
        const std::uint32_t b = in.bits[j];
        bool take = b > cut_bits;
        if (b == cut_bits && ties > 0) {
            ties -= std::min<std::uint64_t>(ties, real ? 1 : 2);
            take = true;
        }
        out.bins[k_out] = in.bins[j] & ~kRealBin;
        std::memcpy(out.values + v_out, &in.values[j], 2 * sizeof(float));
        k_out += take ? 1 : 0;
        v_out += take ? (real ? 1 : 2) : 0;
    }
    out.bin_count = k_out;
    out.value_count = v_out;
    return out;
}

#if defined(GRADCODEC_X86_DISPATCH)

// Bit i of `x` to bit 2i.
std::uint32_t spread_bits(std::uint32_t x) {
    x = (x | (x << 4)) & 0x0f0fu;
    x = (x | (x << 2)) & 0x3333u;
    return (x | (x << 1)) & 0x5555u;
}

// Eight candidates' bins and values, of which those in `take` stay.
__attribute__((target("avx512f"), always_inline)) inline void keep_eight_avx512(
    const CandidateView& in, std::size_t j, std::uint32_t take, KeptArrays& out) {
    const __m512i real_bit = _mm512_set1_epi64(std::bit_cast<long long>(kRealBin));
    const __m512i bin_bits = _mm512_set1_epi64(std::bit_cast<long long>(~kRealBin));
    const __m512i bins = _mm512_loadu_si512(in.bins + j);
    const auto take8 = static_cast<__mmask8>(take);
    const auto real = static_cast<std::uint32_t>(_mm512_test_epi64_mask(bins, real_bit));
    _mm512_storeu_si512(out.bins + out.bin_count,
                        _mm512_maskz_compress_epi64(take8, _mm512_and_si512(bins, bin_bits)));
    out.bin_count += static_cast<std::size_t>(std::popcount(take));
    // Re of every bin kept, Im of those kept that are not real.
    const auto scalars =
        static_cast<__mmask16>(spread_bits(take) | (spread_bits(take & ~real) << 1));
    _mm512_storeu_ps(out.values + out.value_count,
                     _mm512_maskz_compress_ps(scalars, _mm512_loadu_ps(in.values + j)));
    out.value_count += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(scalars)));
}

// Sixteen candidates at a time; a group with a candidate at the cut takes the portable path,
// which owes the ties in order.
// Works on copies, for the reason append_avx512 takes its arguments by value.
__attribute__((target("avx512f"))) KeptArrays keep_avx512(const CandidateView in,
                                                          std::uint32_t cut_bits,
                                                          std::uint64_t ties, KeptArrays out) {
    const __m512i cut = _mm512_set1_epi32(static_cast<int>(cut_bits));
    std::size_t j = 0;
    for (; j + 16 <= in.size; j += 16) {
        const __m512i bits = _mm512_loadu_si512(in.bits + j);
        if (_mm512_cmpeq_epu32_mask(bits, cut) != 0) {
            out = keep_portable(in, j, j + 16, cut_bits, ties, out);
            continue;
        }
        const auto take = static_cast<std::uint32_t>(_mm512_cmpgt_epu32_mask(bits, cut));
        keep_eight_avx512(in, j, take & 0xffu, out);
        keep_eight_avx512(in, j + 8, take >> 8, out);
    }
    return keep_portable(in, j, in.size, cut_bits, ties, out);
}

// re^2 + im^2 of 16 bins, as score_chunk computes them: the squares, then their sum (the
// permutes between keep the two from fusing).
__attribute__((target("avx512f"))) __m512 squared_magnitudes(__m512 low, __m512 high) {
    const __m512 low2 = _mm512_mul_ps(low, low), high2 = _mm512_mul_ps(high, high);
    const __m512i re = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i im = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    return _mm512_add_ps(_mm512_permutex2var_ps(low2, re, high2),
                         _mm512_permutex2var_ps(low2, im, high2));
}

// Compresses into registers and stores whole vectors: the compress-to-memory form is slow on
// some processors. Each store may write up to 16 entries past the new size. The last group of
// a run is loaded under a mask (masked-off lanes are not read), so no bin takes a scalar path.
// The run and arrays come by value: the vector stores may alias anything, and fields read
// through a reference would be reloaded after each.
__attribute__((target("avx512f"))) std::size_t append_avx512(const BinRun run, std::uint32_t floor,
                                                             const CandidateArrays out,
                                                             std::size_t m) {
    const __m512i magnitude = _mm512_set1_epi32(0x7fffffff);
    const __m512i floor_bits = _mm512_set1_epi32(static_cast<int>(floor));
    const __m512i lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i eight = _mm512_set1_epi64(8);
    for (std::size_t k = 0; k < run.count; k += 16) {
        const std::size_t left = run.count - k;
        const auto valid = static_cast<__mmask16>(left >= 16 ? 0xffffu : (1u << left) - 1);
        const auto valid_low = static_cast<__mmask8>(valid);
        const auto valid_high = static_cast<__mmask8>(valid >> 8);
        const auto* pairs = reinterpret_cast<const std::uint64_t*>(run.spectrum + k);
        const __m512i low_pairs = _mm512_maskz_loadu_epi64(valid_low, pairs);
        const __m512i high_pairs = _mm512_maskz_loadu_epi64(valid_high, pairs + 8);
        const __m512 score = run.scores != nullptr
                                 ? _mm512_maskz_loadu_ps(valid, run.scores + k)
                                 : squared_magnitudes(_mm512_castsi512_ps(low_pairs),
                                                      _mm512_castsi512_ps(high_pairs));
        const __m512i b = _mm512_and_si512(_mm512_castps_si512(score), magnitude);
        const __mmask16 keep = _mm512_mask_cmpge_epu32_mask(valid, b, floor_bits);
        if (keep == 0) continue;
        const auto low = static_cast<__mmask8>(keep);
        const auto high = static_cast<__mmask8>(keep >> 8);
        const auto low_count = static_cast<std::size_t>(std::popcount(static_cast<unsigned>(low)));
        _mm512_storeu_si512(out.bits + m, _mm512_maskz_compress_epi32(keep, b));
        const std::uint64_t group_bin = run.first_bin + k;
        const __m512i first =
            _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(group_bin)), lanes);
        _mm512_storeu_si512(out.bins + m, _mm512_maskz_compress_epi64(low, first));
        _mm512_storeu_si512(out.bins + m + low_count,
                            _mm512_maskz_compress_epi64(high, _mm512_add_epi64(first, eight)));
        _mm512_storeu_si512(out.values + m, _mm512_maskz_compress_epi64(low, low_pairs));
        _mm512_storeu_si512(out.values + m + low_count,
                            _mm512_maskz_compress_epi64(high, high_pairs));
        m += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(keep)));
    }
    return m;
}

// Eight bins at a time, scored and tested against the floor in vectors, and left-packed
// through the tables. Each store may write up to 8 entries past the new size.
__attribute__((target("avx2"))) std::size_t append_avx2(const BinRun run, std::uint32_t floor,
                                                        const CandidateArrays out, std::size_t m) {
    const __m256i magnitude = _mm256_set1_epi32(0x7fffffff);
    const __m256i floor_bits = _mm256_set1_epi32(static_cast<int>(floor));
    const auto* parts = reinterpret_cast<const float*>(run.spectrum);
    std::size_t k = 0;
    for (; k + 8 <= run.count; k += 8) {
        const __m256 low = _mm256_loadu_ps(parts + 2 * k);
        const __m256 high = _mm256_loadu_ps(parts + 2 * k + 8);
        __m256 score;
        if (run.scores != nullptr) {
            score = _mm256_loadu_ps(run.scores + k);
        } else {
            // The squares, then the sum of each pair, as squared_magnitude: the horizontal add
            // gives bins 0 1 4 5 2 3 6 7, which the permute puts in order.
            const __m256 sums = _mm256_hadd_ps(_mm256_mul_ps(low, low), _mm256_mul_ps(high, high));
            score = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(sums), 0xd8));
        }
        const __m256i b = _mm256_and_si256(_mm256_castps_si256(score), magnitude);
        // b >= floor, unsigned.
        const __m256i kept = _mm256_cmpeq_epi32(_mm256_max_epu32(b, floor_bits), b);
        const unsigned keep = lane_mask(kept);
        if (keep == 0) continue;
        const __m256i lanes = left_pack_order(keep);
        store_whole(out.bits + m, _mm256_permutevar8x32_epi32(b, lanes));
        const std::uint64_t group_bin = run.first_bin + k;
        const __m256i first = _mm256_set1_epi64x(static_cast<long long>(group_bin));
        store_whole(out.bins + m,
                    _mm256_add_epi64(first, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(lanes))));
        store_whole(
            out.bins + m + 4,
            _mm256_add_epi64(first, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(lanes, 1))));
        const unsigned low_keep = keep & 0xfu;
        store_whole(out.values + m, left_packed_pairs(_mm256_castps_si256(low), low_keep));
        const auto low_count = static_cast<std::size_t>(std::popcount(low_keep));
        store_whole(out.values + m + low_count,
                    left_packed_pairs(_mm256_castps_si256(high), keep >> 4));
        m += static_cast<std::size_t>(std::popcount(keep));
    }
    return append_portable(run, k, floor, out, m);
}

// The keep, eight candidates at a time, left-packed through the same tables: bins as four
// 64-bit lanes twice, values as eight scalars twice. A group with a candidate at the cut
// takes the portable path, which owes the ties in order.
__attribute__((target("avx2"))) KeptArrays keep_avx2(const CandidateView in, std::uint32_t cut_bits,
                                                     std::uint64_t ties, KeptArrays out) {
    const __m256i cut = _mm256_set1_epi32(static_cast<int>(cut_bits));
    const __m256i bin_bits = _mm256_set1_epi64x(std::bit_cast<long long>(~kRealBin));
    std::size_t j = 0;
    for (; j + 8 <= in.size; j += 8) {
        const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in.bits + j));
        if (lane_mask(_mm256_cmpeq_epi32(bits, cut)) != 0) {
            out = keep_portable(in, j, j + 8, cut_bits, ties, out);
            continue;
        }
        // bits > cut, unsigned: max(bits, cut) != cut.
        const unsigned take =
            ~lane_mask(_mm256_cmpeq_epi32(_mm256_max_epu32(bits, cut), cut)) & 0xffu;
        if (take == 0) continue;
        const __m256i bins_low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in.bins + j));
        const __m256i bins_high =
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in.bins + j + 4));
        // kRealBin is each bin's sign bit.
        const auto real =
            static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(bins_low)) |
                                  (_mm256_movemask_pd(_mm256_castsi256_pd(bins_high)) << 4));
        store_whole(out.bins + out.bin_count,
                    left_packed_pairs(_mm256_and_si256(bins_low, bin_bits), take & 0xfu));
        out.bin_count += static_cast<std::size_t>(std::popcount(take & 0xfu));
        store_whole(out.bins + out.bin_count,
                    left_packed_pairs(_mm256_and_si256(bins_high, bin_bits), take >> 4));
        out.bin_count += static_cast<std::size_t>(std::popcount(take >> 4));
        // Re of every bin kept, Im of those kept that are not real.
        const std::uint32_t scalars = spread_bits(take) | (spread_bits(take & ~real) << 1);
        for (std::size_t half = 0; half < 2; ++half) {
            const unsigned mask = (scalars >> (8 * half)) & 0xffu;
            const __m256i values =
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in.values + j + 4 * half));
            store_whole(out.values + out.value_count, left_packed(values, mask));
            out.value_count += static_cast<std::size_t>(std::popcount(mask));
        }
    }
    return keep_portable(in, j, in.size, cut_bits, ties, out);
}

#endif

}  // namespace

std::size_t append_candidates(VectorPath path, const BinRun& run, std::uint32_t floor,
                              const CandidateArrays& out, std::size_t size) {
#if defined(GRADCODEC_X86_DISPATCH)
    if (path == VectorPath::avx512 && cpu_supports(path))
        return append_avx512(run, floor, out, size);
    if (path == VectorPath::avx2 && cpu_supports(path)) return append_avx2(run, floor, out, size);
#endif
    (void)path;
    return append_portable(run, 0, floor, out, size);
}

void keep_candidates(VectorPath path, const CandidateView& in, std::uint32_t cut_bits,
                     std::uint64_t ties, KeptArrays& out) {
    out.bin_count = 0;
    out.value_count = 0;
#if defined(GRADCODEC_X86_DISPATCH)
    if (path == VectorPath::avx512 && cpu_supports(path)) {
        out = keep_avx512(in, cut_bits, ties, out);
        return;
    }
    if (path == VectorPath::avx2 && cpu_supports(path)) {
        out = keep_avx2(in, cut_bits, ties, out);
        return;
    }
#endif
    (void)path;
    out = keep_portable(in, 0, in.size, cut_bits, ties, out);
}

}  // namespace gradcodec
