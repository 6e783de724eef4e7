#include "select/magnitude_scan.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "common/scratch.hpp"
#include "select/selection.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gradcodec {
namespace {

constexpr std::size_t kBlock = 16;

// Bit j set when element first+j matches. Magnitude patterns are < 2^31, so a signed 32-bit
// compare orders them correctly; SSE2 is the x86-64 baseline, other targets use the scalar loop.
inline std::uint32_t block_mask(const float* p, std::uint32_t lo) {
#if defined(__SSE2__)
    const __m128i abs_mask = _mm_set1_epi32(0x7fffffff);
    const __m128i limit = _mm_set1_epi32(static_cast<int>(lo) - 1);
    std::uint32_t m = 0;
    for (int j = 0; j < 4; ++j) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 4 * j));
        v = _mm_and_si128(v, abs_mask);
        const __m128i gt = _mm_cmpgt_epi32(v, limit);
        m |= static_cast<std::uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(gt))) << (4 * j);
    }
    return m;
#else
    std::uint32_t m = 0;
    for (std::size_t j = 0; j < kBlock; ++j) m |= std::uint32_t{magnitude_bits(p[j]) >= lo} << j;
    return m;
#endif
}

// Calls f(index) for each match, in order. lo == 0 matches everything (the SSE2 limit would
// wrap), handled by the caller.
template <class F>
void for_each_at_least(std::span<const float> x, std::uint32_t lo, F&& f) {
    const std::size_t n = x.size();
    std::size_t i = 0;
    if (lo != 0) {
        for (; i + kBlock <= n; i += kBlock) {
            std::uint32_t m = block_mask(x.data() + i, lo);
            while (m != 0) {
                f(i + static_cast<std::size_t>(std::countr_zero(m)));
                m &= m - 1;
            }
        }
    }
    for (; i < n; ++i)
        if (magnitude_bits(x[i]) >= lo) f(i);
}

}  // namespace

std::uint64_t count_at_least(std::span<const float> x, std::uint32_t lo) {
    std::uint64_t total = 0;
    const std::size_t n = x.size();
    // Counting in 32-bit pieces lets the compiler vectorise the compare-and-add.
    for (std::size_t first = 0; first < n; first += std::size_t{1} << 30) {
        const std::size_t end = std::min(n, first + (std::size_t{1} << 30));
        std::uint32_t c = 0;
        for (std::size_t i = first; i < end; ++i) {
            std::uint32_t b;
            std::memcpy(&b, &x[i], 4);
            c += (b & 0x7fffffffu) >= lo ? 1u : 0u;
        }
        total += c;
    }
    return total;
}

std::uint64_t collect_at_least(std::span<const float> x, std::uint32_t lo, std::uint64_t cap,
                               ScratchVector<std::uint64_t>& out) {
    std::uint64_t count = 0;
    for_each_at_least(x, lo, [&](std::size_t i) {
        if (count < cap) out.push_back(i);
        ++count;
    });
    return count;
}

void collect_counted_at_least(std::span<const float> x, std::uint32_t lo, std::uint64_t count,
                              ScratchVector<std::uint64_t>& out) {
    if (count < x.size() / 64) {
        collect_at_least(x, lo, count, out);
        return;
    }
    // Branch-free into a small buffer, then appended: no zero-filled (and page-faulted) slack
    // in `out` that the stores would then overwrite.
    out.reserve(out.size() + count);
    constexpr std::size_t kChunk = 4096;
    std::uint64_t buffer[kChunk];
    std::uint64_t taken = 0;
    for (std::size_t first = 0; first < x.size() && taken < count; first += kChunk) {
        const std::size_t end = std::min(x.size(), first + kChunk);
        std::size_t fill = 0;
        for (std::size_t i = first; i < end; ++i) {
            buffer[fill] = i;
            fill += magnitude_bits(x[i]) >= lo ? 1 : 0;
        }
        // Never more than `count` in all, even when `count` was wrong.
        const std::size_t keep =
            static_cast<std::size_t>(std::min<std::uint64_t>(fill, count - taken));
        out.insert(out.end(), buffer, buffer + keep);
        taken += keep;
    }
}

void gather_magnitudes_at_least(std::span<const float> x, std::uint32_t lo,
                                ScratchVector<float>& out) {
    // Branch-free into a small buffer, then appended: SIDCo gathers a quarter of the tensor,
    // where a branch per element would mispredict constantly.
    constexpr std::size_t kChunk = 4096;
    float buffer[kChunk];
    for (std::size_t first = 0; first < x.size(); first += kChunk) {
        const std::size_t end = std::min(x.size(), first + kChunk);
        std::size_t fill = 0;
        for (std::size_t i = first; i < end; ++i) {
            const float a = std::fabs(x[i]);
            buffer[fill] = a;
            fill += magnitude_bits(a) >= lo ? 1 : 0;
        }
        out.insert(out.end(), buffer, buffer + fill);
    }
}

}  // namespace gradcodec
