#include "common/magnitude_max.hpp"
#include "common/cpu_features.hpp"

#include <algorithm>
#include <array>
#include <bit>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
namespace gradcodec {
namespace {

constexpr std::uint32_t kMagnitude = 0x7fffffffu;

#if defined(__SSE2__)
// SSE2 has no unsigned 32-bit max, but patterns with the sign bit clear compare the same as
// signed integers: a compare and a select per four values.
__m128i running_max(__m128i acc, const float* p) {
    const __m128i v = _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)),
                                    _mm_set1_epi32(static_cast<int>(kMagnitude)));
    const __m128i greater = _mm_cmpgt_epi32(v, acc);
    return _mm_or_si128(_mm_and_si128(greater, v), _mm_andnot_si128(greater, acc));
}
#endif

#if defined(GRADCODEC_X86_DISPATCH)
// AVX2 has the unsigned max itself: eight values per and and max.
__attribute__((target("avx2"))) std::uint32_t largest_avx2(std::span<const float> values) {
    const __m256i magnitude = _mm256_set1_epi32(static_cast<int>(kMagnitude));
    __m256i a = _mm256_setzero_si256(), b = a, c = a, d = a;
    const float* p = values.data();
    std::size_t i = 0;
    const auto* v = reinterpret_cast<const __m256i*>(p);
    for (; i + 32 <= values.size(); i += 32, v += 4) {
        a = _mm256_max_epu32(a, _mm256_and_si256(_mm256_loadu_si256(v), magnitude));
        b = _mm256_max_epu32(b, _mm256_and_si256(_mm256_loadu_si256(v + 1), magnitude));
        c = _mm256_max_epu32(c, _mm256_and_si256(_mm256_loadu_si256(v + 2), magnitude));
        d = _mm256_max_epu32(d, _mm256_and_si256(_mm256_loadu_si256(v + 3), magnitude));
    }
    alignas(32) std::array<std::uint32_t, 8> lanes;
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes.data()),
                       _mm256_max_epu32(_mm256_max_epu32(a, b), _mm256_max_epu32(c, d)));
    std::uint32_t m = 0;
    for (const std::uint32_t lane : lanes) m = std::max(m, lane);
    for (; i < values.size(); ++i) m = std::max(m, std::bit_cast<std::uint32_t>(p[i]) & kMagnitude);
    return m;
}
#endif

}  // namespace

std::uint32_t largest_magnitude_bits(std::span<const float> values) {
#if defined(GRADCODEC_X86_DISPATCH)
    if (cpu_has_avx2()) return largest_avx2(values);
#endif
    std::size_t i = 0;
    std::uint32_t m = 0;
#if defined(__SSE2__)
    // Four running maxima in registers (an array of them would live on the stack).
    __m128i a = _mm_setzero_si128(), b = a, c = a, d = a;
    for (; i + 16 <= values.size(); i += 16) {
        a = running_max(a, values.data() + i);
        b = running_max(b, values.data() + i + 4);
        c = running_max(c, values.data() + i + 8);
        d = running_max(d, values.data() + i + 12);
    }
    alignas(16) std::array<std::uint32_t, 16> lanes;
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes.data()), a);
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes.data() + 4), b);
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes.data() + 8), c);
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes.data() + 12), d);
    for (const std::uint32_t lane : lanes) m = std::max(m, lane);
#endif
    for (; i < values.size(); ++i)
        m = std::max(m, std::bit_cast<std::uint32_t>(values[i]) & kMagnitude);
    return m;
}

}  // namespace gradcodec
