// The array conversions on x86's conversion instructions, chosen at run time, so one binary
// runs everywhere. Each vector path corrects the lanes where the instruction's rules differ
// from the portable code's, which defines the bytes.
#include <cstring>

#include "common/cpu_features.hpp"
#include "common/small_float.hpp"

namespace gradcodec {
namespace {

#if defined(GRADCODEC_X86_DISPATCH)

constexpr std::size_t kBlock = 1024;  // values between overflow checks

// The index of the first overflowing value in [first, end), found by the portable rule.
std::size_t first_overflow(SmallFloat type, const float* values, std::size_t first,
                           std::size_t end) {
    for (std::size_t i = first; i < end; ++i) {
        if ((narrow_float_bits(type, values[i]) & kNarrowOverflow) != 0) return i;
    }
    return end;
}

// Narrows the values [first, end) one by one; returns the first overflow or `end`.
std::size_t narrow_tail(SmallFloat type, const float* values, std::size_t first, std::size_t end,
                        std::uint8_t* out) {
    for (std::size_t i = first; i < end; ++i) {
        const std::uint32_t h = narrow_float_bits(type, values[i]);
        if ((h & kNarrowOverflow) != 0) return i;
        out[2 * i] = static_cast<std::uint8_t>(h);
        out[2 * i + 1] = static_cast<std::uint8_t>(h >> 8);
    }
    return end;
}

// F16C rounds to nearest even like the portable code, subnormals included, but keeps NaN
// payloads (the portable code writes the canonical quiet NaN) and rounds finite overflow to
// infinity (the portable code reports it).
__attribute__((target("avx2,f16c"))) std::size_t narrow_f16_f16c(const float* v, std::size_t n,
                                                                 std::uint8_t* out) {
    const __m256i magnitude_mask = _mm256_set1_epi32(0x7fffffff);
    const __m256i infinity = _mm256_set1_epi32(0x7f800000);
    const __m256i below_overflow = _mm256_set1_epi32(0x477ff000 - 1);
    const __m128i canonical_nan = _mm_set1_epi16(0x7e00);
    const __m128i sign_mask = _mm_set1_epi16(static_cast<short>(0x8000));
    std::size_t i = 0;
    for (std::size_t first = 0; first + 8 <= n; first = i) {
        const std::size_t end = first + kBlock < n ? first + kBlock : n;
        __m256i overflow = _mm256_setzero_si256();
        for (; i + 8 <= end; i += 8) {
            const __m256 x = _mm256_loadu_ps(v + i);
            const __m256i a = _mm256_and_si256(_mm256_castps_si256(x), magnitude_mask);
            __m128i h = _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            const __m256i nan32 = _mm256_cmpgt_epi32(a, infinity);
            const __m256i big32 = _mm256_andnot_si256(
                _mm256_cmpgt_epi32(a, _mm256_sub_epi32(infinity, _mm256_set1_epi32(1))),
                _mm256_cmpgt_epi32(a, below_overflow));
            overflow = _mm256_or_si256(overflow, big32);
            // Lane masks from 32 to 16 bits: saturating packs keep all-ones and zeros.
            const __m128i nan16 =
                _mm_packs_epi32(_mm256_castsi256_si128(nan32), _mm256_extracti128_si256(nan32, 1));
            const __m128i fixed = _mm_or_si128(_mm_and_si128(h, sign_mask), canonical_nan);
            h = _mm_blendv_epi8(h, fixed, nan16);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i), h);
        }
        if (!_mm256_testz_si256(overflow, overflow))
            return first_overflow(SmallFloat::f16, v, first, end);
        if (i == first) break;
    }
    return narrow_tail(SmallFloat::f16, v, i, n, out);
}

// VCVTNEPS2BF16 rounds to nearest even like the portable code but flushes subnormal inputs
// to zero, keeps NaN payloads and rounds overflow to infinity; those lanes take the portable
// integer rule (or are reported).
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) std::size_t narrow_bf16_avx512(
    const float* v, std::size_t n, std::uint8_t* out) {
    const __m512i magnitude_mask = _mm512_set1_epi32(0x7fffffff);
    const __m512i smallest_normal = _mm512_set1_epi32(0x00800000);
    const __m512i infinity = _mm512_set1_epi32(0x7f800000);
    const __m512i overflow_from = _mm512_set1_epi32(0x7f7f8000);
    const __m512i bias = _mm512_set1_epi32(0x7fff);
    const __m512i one = _mm512_set1_epi32(1);
    const __m512i quiet_nan = _mm512_set1_epi32(0x7fc0);
    std::size_t i = 0;
    for (std::size_t first = 0; first + 16 <= n; first = i) {
        const std::size_t end = first + kBlock < n ? first + kBlock : n;
        __mmask16 overflow = 0;
        for (; i + 16 <= end; i += 16) {
            const __m512 x = _mm512_loadu_ps(v + i);
            const __m512i bits = _mm512_castps_si512(x);
            const __m512i a = _mm512_and_si512(bits, magnitude_mask);
            __m256i h = (__m256i)_mm512_cvtneps_pbh(x);  // the same 32 bytes, as integers
            const __mmask16 subnormal = _mm512_cmplt_epu32_mask(a, smallest_normal);
            const __mmask16 nan = _mm512_cmpgt_epu32_mask(a, infinity);
            overflow |= _mm512_mask_cmpge_epu32_mask(_mm512_cmplt_epu32_mask(a, infinity), a,
                                                     overflow_from);
            if ((subnormal | nan) != 0) {
                // The maskz forms (all lanes on) spare GCC 12 a false "uninitialized" warning.
                const __mmask16 all = 0xffff;
                const __m512i sign = _mm512_and_si512(_mm512_maskz_srli_epi32(all, bits, 16),
                                                      _mm512_set1_epi32(0x8000));
                const __m512i odd = _mm512_and_si512(_mm512_maskz_srli_epi32(all, a, 16), one);
                __m512i fix = _mm512_maskz_srli_epi32(
                    all, _mm512_add_epi32(_mm512_add_epi32(a, bias), odd), 16);
                fix = _mm512_mask_mov_epi32(fix, nan, quiet_nan);
                fix = _mm512_or_si512(fix, sign);
                const __m256i fix16 = _mm512_maskz_cvtepi32_epi16(all, fix);
                h = _mm256_mask_mov_epi16(h, subnormal | nan, fix16);
            }
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * i), h);
        }
        if (overflow != 0) return first_overflow(SmallFloat::bf16, v, first, end);
        if (i == first) break;
    }
    return narrow_tail(SmallFloat::bf16, v, i, n, out);
}

// CPUs without AVX-512 BF16 (AVX2 alone, or AVX-512 without BF16) narrow bf16 eight lanes at
// a time by the portable integer rule itself, so only NaN lanes need a fix: the rule's
// rounding would give them a payload, the portable code writes the quiet NaN.
// Inlined by force: called, it keeps `overflow` in memory.
__attribute__((target("avx2"), always_inline)) inline __m256i narrow_bf16_lanes_avx2(
    __m256i bits, __m256i& overflow) {
    const __m256i a = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
    const __m256i infinity = _mm256_set1_epi32(0x7f800000);
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(a, 16), _mm256_set1_epi32(1));
    __m256i h = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(a, _mm256_set1_epi32(0x7fff)), odd), 16);
    // a <= 0x7fffffff, so the signed compares order magnitudes.
    const __m256i nan = _mm256_cmpgt_epi32(a, infinity);
    h = _mm256_blendv_epi8(h, _mm256_set1_epi32(0x7fc0), nan);
    // Finite values from 0x7f7f8000 round past 0x7f7f.
    overflow = _mm256_or_si256(
        overflow,
        _mm256_andnot_si256(_mm256_cmpgt_epi32(a, _mm256_sub_epi32(infinity, _mm256_set1_epi32(1))),
                            _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7f7f8000 - 1))));
    const __m256i sign = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(0x8000));
    return _mm256_or_si256(h, sign);
}

__attribute__((target("avx2"))) std::size_t narrow_bf16_avx2(const float* v, std::size_t n,
                                                             std::uint8_t* out) {
    std::size_t i = 0;
    for (std::size_t first = 0; first + 16 <= n; first = i) {
        const std::size_t end = first + kBlock < n ? first + kBlock : n;
        __m256i overflow = _mm256_setzero_si256();
        for (; i + 16 <= end; i += 16) {
            const __m256i low = narrow_bf16_lanes_avx2(
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + i)), overflow);
            const __m256i high = narrow_bf16_lanes_avx2(
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + i + 8)), overflow);
            // Every lane is at most 0xffff, so the pack does not saturate; it interleaves the
            // 128-bit halves, which the permute puts back in order.
            const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(low, high), 0xd8);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * i), packed);
        }
        if (!_mm256_testz_si256(overflow, overflow))
            return first_overflow(SmallFloat::bf16, v, first, end);
        if (i == first) break;
    }
    return narrow_tail(SmallFloat::bf16, v, i, n, out);
}

// F16C widens exactly, but quiets signalling NaNs; the portable code keeps every payload bit.
__attribute__((target("avx2,f16c"))) void widen_f16_f16c(const std::uint8_t* in, float* out,
                                                         std::size_t n) {
    const __m256i exponent_mask = _mm256_set1_epi32(0x7c00);
    const __m256i mantissa_mask = _mm256_set1_epi32(0x3ff);
    const __m256i sign_mask = _mm256_set1_epi32(0x8000);
    const __m256i infinity = _mm256_set1_epi32(0x7f800000);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 2 * i));
        __m256 x = _mm256_cvtph_ps(h);
        const __m256i h32 = _mm256_cvtepu16_epi32(h);
        const __m256i special =
            _mm256_cmpeq_epi32(_mm256_and_si256(h32, exponent_mask), exponent_mask);
        if (!_mm256_testz_si256(special, special)) {
            const __m256i exact = _mm256_or_si256(
                _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(h32, sign_mask), 16), infinity),
                _mm256_slli_epi32(_mm256_and_si256(h32, mantissa_mask), 13));
            x = _mm256_blendv_ps(x, _mm256_castsi256_ps(exact), _mm256_castsi256_ps(special));
        }
        _mm256_storeu_ps(out + i, x);
    }
    widen_halves_portable(SmallFloat::f16, in + 2 * i, std::span<float>(out + i, n - i));
}

// bf16 is the top half of an f32, so widening is exact on every input: zero-extend, shift.
__attribute__((target("avx2"))) void widen_bf16_avx2(const std::uint8_t* in, float* out,
                                                     std::size_t n) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 2 * i));
        const __m256i x = _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), x);
    }
    widen_halves_portable(SmallFloat::bf16, in + 2 * i, std::span<float>(out + i, n - i));
}

#endif

}  // namespace

bool cpu_supports(ConversionPath path) {
#if defined(GRADCODEC_X86_DISPATCH)
    switch (path) {
        case ConversionPath::portable:
            return true;
        case ConversionPath::f16c:
            return cpu_features().f16c;
        case ConversionPath::avx512_bf16:
            return cpu_features().avx512_bf16;
        case ConversionPath::avx2:
            return cpu_features().avx2;
    }
    return false;
#else
    return path == ConversionPath::portable;
#endif
}

ConversionPath best_conversion_path(SmallFloat type) {
    if (type == SmallFloat::f16)
        return cpu_supports(ConversionPath::f16c) ? ConversionPath::f16c : ConversionPath::portable;
    for (const ConversionPath fast : {ConversionPath::avx512_bf16, ConversionPath::avx2})
        if (cpu_supports(fast)) return fast;
    return ConversionPath::portable;
}

ConversionPath best_widening_path(SmallFloat type) {
    const ConversionPath fast =
        type == SmallFloat::f16 ? ConversionPath::f16c : ConversionPath::avx2;
    return cpu_supports(fast) ? fast : ConversionPath::portable;
}

std::size_t narrow_floats_on(ConversionPath path, SmallFloat type, std::span<const float> values,
                             std::uint8_t* out) {
#if defined(GRADCODEC_X86_DISPATCH)
    if (cpu_supports(path)) {
        if (type == SmallFloat::f16 && path == ConversionPath::f16c)
            return narrow_f16_f16c(values.data(), values.size(), out);
        if (type == SmallFloat::bf16 && path == ConversionPath::avx512_bf16)
            return narrow_bf16_avx512(values.data(), values.size(), out);
        if (type == SmallFloat::bf16 && path == ConversionPath::avx2)
            return narrow_bf16_avx2(values.data(), values.size(), out);
    }
#endif
    (void)path;
    return narrow_floats_portable(type, values, out);
}

void widen_halves_on(ConversionPath path, SmallFloat type, const std::uint8_t* in,
                     std::span<float> out) {
#if defined(GRADCODEC_X86_DISPATCH)
    if (type == SmallFloat::f16 && path == ConversionPath::f16c && cpu_supports(path)) {
        widen_f16_f16c(in, out.data(), out.size());
        return;
    }
    if (type == SmallFloat::bf16 && path == ConversionPath::avx2 && cpu_supports(path)) {
        widen_bf16_avx2(in, out.data(), out.size());
        return;
    }
#endif
    (void)path;
    widen_halves_portable(type, in, out);
}

std::size_t narrow_floats(SmallFloat type, std::span<const float> values, std::uint8_t* out) {
    return narrow_floats_on(best_conversion_path(type), type, values, out);
}

void widen_halves(SmallFloat type, const std::uint8_t* in, std::span<float> out) {
    widen_halves_on(best_widening_path(type), type, in, out);
}

}  // namespace gradcodec
