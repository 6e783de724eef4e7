#include "common/magnitude_max.hpp"

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

}  // namespace

std::uint32_t largest_magnitude_bits(std::span<const float> values) {
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
