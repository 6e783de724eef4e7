#include "codec/byte_planes.hpp"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gradcodec {

namespace {

#if defined(__SSE2__)
// 16 four-byte elements become 16 bytes of each plane: three rounds of byte interleaving
// gather the bytes of equal rank, then 64-bit halves are paired per plane.
std::size_t split_planes4_sse2(const std::uint8_t* e, std::size_t n, std::uint8_t* p0,
                               std::uint8_t* p1, std::uint8_t* p2, std::uint8_t* p3) {
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(e + 4 * i));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(e + 4 * i + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(e + 4 * i + 32));
        const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(e + 4 * i + 48));
        const __m128i t0 = _mm_unpacklo_epi8(a, b), t1 = _mm_unpackhi_epi8(a, b);
        const __m128i t2 = _mm_unpacklo_epi8(c, d), t3 = _mm_unpackhi_epi8(c, d);
        const __m128i u0 = _mm_unpacklo_epi8(t0, t1), u1 = _mm_unpackhi_epi8(t0, t1);
        const __m128i u2 = _mm_unpacklo_epi8(t2, t3), u3 = _mm_unpackhi_epi8(t2, t3);
        const __m128i v0 = _mm_unpacklo_epi8(u0, u1), v1 = _mm_unpackhi_epi8(u0, u1);
        const __m128i v2 = _mm_unpacklo_epi8(u2, u3), v3 = _mm_unpackhi_epi8(u2, u3);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p0 + i), _mm_unpacklo_epi64(v0, v2));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p1 + i), _mm_unpackhi_epi64(v0, v2));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p2 + i), _mm_unpacklo_epi64(v1, v3));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p3 + i), _mm_unpackhi_epi64(v1, v3));
    }
    return i;
}
#endif

}  // namespace

void split_planes(const std::uint8_t* elements, std::size_t n, std::size_t element_size,
                  std::uint8_t* const* planes) {
    if (element_size == 4) {
        std::uint8_t* p0 = planes[0];
        std::uint8_t* p1 = planes[1];
        std::uint8_t* p2 = planes[2];
        std::uint8_t* p3 = planes[3];
        std::size_t i = 0;
#if defined(__SSE2__)
        i = split_planes4_sse2(elements, n, p0, p1, p2, p3);
#endif
        for (; i < n; ++i) {
            std::uint32_t w;
            std::memcpy(&w, elements + 4 * i, 4);
            p0[i] = static_cast<std::uint8_t>(w);
            p1[i] = static_cast<std::uint8_t>(w >> 8);
            p2[i] = static_cast<std::uint8_t>(w >> 16);
            p3[i] = static_cast<std::uint8_t>(w >> 24);
        }
        return;
    }
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = 0; k < element_size; ++k)
            planes[k][i] = elements[i * element_size + k];
}

void merge_plane(const std::uint8_t* plane, std::size_t n, std::size_t element_size, std::size_t k,
                 std::uint8_t* elements) {
    if (n == 0) return;  // `elements` may be null for an empty tensor: no pointer arithmetic
    std::uint8_t* out = elements + k;
    for (std::size_t i = 0; i < n; ++i) out[i * element_size] = plane[i];
}

}  // namespace gradcodec
