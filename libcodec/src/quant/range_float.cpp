#include "quant/range_float.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "common/cpu_features.hpp"
#include "quant/range_code.hpp"

namespace gradcodec {
namespace {

constexpr std::uint32_t kMagnitudeMask = 0x7FFFFFFFu;
constexpr std::uint32_t kMaxFiniteBits = 0x7F7FFFFFu;

// The bit pattern of the smallest float >= eps / 2: magnitudes at or above it go to eps
// rather than to zero. Computed in double, where eps / 2 is exact.
std::uint32_t half_eps_bits(float eps) {
    const double half = static_cast<double>(eps) / 2.0;
    float f = static_cast<float>(half);
    if (static_cast<double>(f) < half)
        f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return std::bit_cast<std::uint32_t>(f);
}

}  // namespace

float RangeLadder::eps() const {
    return std::bit_cast<float>(pbase << shift());
}
float RangeLadder::top() const {
    return std::bit_cast<float>(top_key() << shift());
}

std::uint32_t max_finite_key(int mantissa) {
    return kMaxFiniteBits >> (23 - mantissa);
}

int min_mantissa(int bits) {
    const std::uint32_t codes = (1u << (bits - 1)) - 1;
    int m = 0;
    while (max_finite_key(m) < codes) ++m;
    return m;
}

bool ladder_is_valid(const RangeLadder& l) {
    if (l.bits < kRangeMinBits || l.bits > kRangeMaxBits) return false;
    if (l.mantissa < 0 || l.mantissa > kRangeMaxMantissa) return false;
    if (l.pbase < 1 || l.pbase > max_finite_key(l.mantissa)) return false;
    return max_finite_key(l.mantissa) - l.pbase >= l.top_code() - 1;
}

RangeLadder ladder_from_max(int bits, int mantissa, float max_abs, Rounding rounding) {
    RangeLadder l{bits, mantissa, 1};
    const int shift = l.shift();
    const std::uint32_t half = rounding == Rounding::nearest && shift > 0 ? 1u << (shift - 1) : 0u;
    const std::uint32_t max_bits = std::bit_cast<std::uint32_t>(max_abs) & kMagnitudeMask;
    const std::int64_t top_key =
        std::min<std::int64_t>((max_bits + half) >> shift, max_finite_key(mantissa));
    // Too few octaves below the max for all K codes: start at the finest key instead.
    const std::int64_t highest_pbase = std::int64_t{max_finite_key(mantissa)} - l.top_code() + 1;
    l.pbase = static_cast<std::uint32_t>(
        std::clamp<std::int64_t>(top_key - l.top_code() + 1, 1, highest_pbase));
    return l;
}

std::optional<RangeLadder> ladder_from_eps(int bits, int mantissa, double eps) {
    RangeLadder l{bits, mantissa, 1};
    const float e = static_cast<float>(eps);
    if (!(e > 0.0f) || !std::isfinite(e)) return std::nullopt;
    l.pbase = std::bit_cast<std::uint32_t>(e) >> l.shift();
    if (!ladder_is_valid(l)) return std::nullopt;
    return l;
}

RangeEncodeConstants range_encode_constants(const RangeLadder& ladder, Rounding rounding) {
    const int shift = ladder.shift();
    return {rounding == Rounding::nearest && shift > 0 ? 1u << (shift - 1) : 0u,
            shift,
            static_cast<std::int32_t>(ladder.pbase) - 1,
            static_cast<std::int32_t>(ladder.top_code()),
            static_cast<std::int32_t>(half_eps_bits(ladder.eps())),
            ladder.bits - 1};
}

RangeDecodeConstants range_decode_constants(const RangeLadder& ladder) {
    return {ladder.shift(), ladder.pbase - 1, ladder.top_code(), ladder.bits - 1};
}

namespace {

// The per-element work (range_code, range_value_bits) has no branch. The loops run over
// fixed runs of kLanes with __restrict pointers, a shape GCC vectorises even at -O2's
// "very cheap" cost model (a variable-length loop there stays scalar: 4x slower).
constexpr std::size_t kLanes = 16;

template <typename Code>
inline void encode_run(const RangeEncodeConstants& k, const float* __restrict src,
                       Code* __restrict out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        out[i] = static_cast<Code>(range_code(k, std::bit_cast<std::uint32_t>(src[i])));
}

template <typename Code>
inline void decode_run(const RangeDecodeConstants& k, const Code* __restrict in,
                       float* __restrict dst, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) dst[i] = std::bit_cast<float>(range_value_bits(k, in[i]));
}

// `Lanes` must be a multiple of the vector's byte lanes, or the byte codes stay scalar. Always
// inlined, so that the AVX2 build below gets its own copy; encode_run must not be: GCC 12 does
// not vectorise its loop once it is always_inline.
template <std::size_t Lanes, typename Code>
[[gnu::always_inline]] inline void encode_runs(const RangeLadder& ladder, Rounding rounding,
                                               std::span<const float> in, Code* out) {
    const RangeEncodeConstants k = range_encode_constants(ladder, rounding);
    const std::size_t n = in.size();
    std::size_t i = 0;
    for (; i + Lanes <= n; i += Lanes) encode_run(k, in.data() + i, out + i, Lanes);
    encode_run(k, in.data() + i, out + i, n - i);
}

#if defined(GRADCODEC_X86_DISPATCH)
// The same loop compiled for AVX2, whose 32-bit min and shifts by a register SSE2 lacks.
template <typename Code>
__attribute__((target("avx2"))) void encode_runs_avx2(const RangeLadder& ladder, Rounding rounding,
                                                      std::span<const float> in, Code* out) {
    encode_runs<2 * kLanes>(ladder, rounding, in, out);
}

// And for AVX-512: twice the lanes, and its narrowing moves (vpmovdb, vpmovdw) pack the codes.
template <typename Code>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void encode_runs_avx512(
    const RangeLadder& ladder, Rounding rounding, std::span<const float> in, Code* out) {
    encode_runs<4 * kLanes>(ladder, rounding, in, out);
}
#endif

}  // namespace

template <typename Code>
void encode_range_floats_on(VectorPath path, const RangeLadder& ladder, Rounding rounding,
                            std::span<const float> in, Code* out) {
#if defined(GRADCODEC_X86_DISPATCH)
    if (!cpu_supports(path)) path = VectorPath::portable;
    if (path == VectorPath::avx512) return encode_runs_avx512(ladder, rounding, in, out);
    if (path == VectorPath::avx2) return encode_runs_avx2(ladder, rounding, in, out);
#endif
    encode_runs<kLanes>(ladder, rounding, in, out);
}

template <typename Code>
void encode_range_floats(const RangeLadder& ladder, Rounding rounding, std::span<const float> in,
                         Code* out) {
    static const VectorPath widest = widest_vector_path();
    encode_range_floats_on(widest, ladder, rounding, in, out);
}

template <typename Code>
void decode_range_floats(const RangeLadder& ladder, const Code* in, std::span<float> out) {
    const RangeDecodeConstants k = range_decode_constants(ladder);
    const std::size_t n = out.size();
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) decode_run(k, in + i, out.data() + i, kLanes);
    decode_run(k, in + i, out.data() + i, n - i);
}

template void encode_range_floats<std::uint8_t>(const RangeLadder&, Rounding,
                                                std::span<const float>, std::uint8_t*);
template void encode_range_floats_on<std::uint8_t>(VectorPath, const RangeLadder&, Rounding,
                                                   std::span<const float>, std::uint8_t*);
template void encode_range_floats_on<std::uint16_t>(VectorPath, const RangeLadder&, Rounding,
                                                    std::span<const float>, std::uint16_t*);
template void encode_range_floats_on<std::uint32_t>(VectorPath, const RangeLadder&, Rounding,
                                                    std::span<const float>, std::uint32_t*);
template void encode_range_floats<std::uint16_t>(const RangeLadder&, Rounding,
                                                 std::span<const float>, std::uint16_t*);
template void encode_range_floats<std::uint32_t>(const RangeLadder&, Rounding,
                                                 std::span<const float>, std::uint32_t*);
template void decode_range_floats<std::uint8_t>(const RangeLadder&, const std::uint8_t*,
                                                std::span<float>);
template void decode_range_floats<std::uint16_t>(const RangeLadder&, const std::uint16_t*,
                                                 std::span<float>);
template void decode_range_floats<std::uint32_t>(const RangeLadder&, const std::uint32_t*,
                                                 std::span<float>);

}  // namespace gradcodec
