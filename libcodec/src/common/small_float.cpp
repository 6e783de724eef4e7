#include "common/small_float.hpp"

#include <cmath>

namespace gradcodec {
namespace {

struct Layout {
    int exponent_bits;
    int mantissa_bits;
};

constexpr Layout layout(SmallFloat type) {
    return type == SmallFloat::f16 ? Layout{5, 10} : Layout{8, 7};
}

}  // namespace

double small_float_max(SmallFloat type) {
    const Layout l = layout(type);
    const int emax = (1 << (l.exponent_bits - 1)) - 1;
    return std::ldexp(2.0 - std::ldexp(1.0, -l.mantissa_bits), emax);
}

// Works in double, where every binary32 and binary16 value is exact, so one rounding step
// (std::nearbyint in the default ties-to-even mode) gives the correctly rounded result.
std::optional<std::uint16_t> narrow_to(SmallFloat type, double x) {
    const Layout l = layout(type);
    const int bias = (1 << (l.exponent_bits - 1)) - 1;
    const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const std::uint16_t exponent_mask =
        static_cast<std::uint16_t>(((1u << l.exponent_bits) - 1) << l.mantissa_bits);
    if (std::isnan(x)) {
        return static_cast<std::uint16_t>(sign | exponent_mask | (1u << (l.mantissa_bits - 1)));
    }
    if (std::isinf(x)) return static_cast<std::uint16_t>(sign | exponent_mask);
    const double a = std::fabs(x);
    const int min_exponent = 1 - bias;
    if (a < std::ldexp(1.0, min_exponent)) {
        // Subnormal range: a fixed step of 2^(min_exponent - mantissa_bits). Rounding up to
        // 2^mantissa_bits lands exactly on the smallest normal's encoding.
        const double q = std::nearbyint(std::ldexp(a, l.mantissa_bits - min_exponent));
        return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(q));
    }
    int e2 = 0;
    const double fraction = std::frexp(a, &e2);  // a = fraction * 2^e2, fraction in [0.5, 1)
    int exponent = e2 - 1;
    double q = std::nearbyint(std::ldexp(fraction * 2.0 - 1.0, l.mantissa_bits));
    if (q == std::ldexp(1.0, l.mantissa_bits)) {
        q = 0;
        ++exponent;
    }
    if (exponent > bias) return std::nullopt;
    const auto biased = static_cast<std::uint16_t>(exponent + bias);
    return static_cast<std::uint16_t>(sign | (biased << l.mantissa_bits) |
                                      static_cast<std::uint16_t>(q));
}

namespace {

template <SmallFloat Type>
std::size_t narrow_all(std::span<const float> values, std::uint8_t* out) {
    // Blocks of 1024: the overflow test leaves the vectorised loop once per block.
    constexpr std::size_t kBlock = 1024;
    const std::size_t n = values.size();
    for (std::size_t first = 0; first < n; first += kBlock) {
        const std::size_t end = first + kBlock < n ? first + kBlock : n;
        std::uint32_t overflow = 0;
        for (std::size_t i = first; i < end; ++i) {
            const std::uint32_t h = narrow_float_bits(Type, values[i]);
            overflow |= h;
            out[2 * i] = static_cast<std::uint8_t>(h);
            out[2 * i + 1] = static_cast<std::uint8_t>(h >> 8);
        }
        if ((overflow & kNarrowOverflow) != 0) {
            for (std::size_t i = first; i < end; ++i)
                if ((narrow_float_bits(Type, values[i]) & kNarrowOverflow) != 0) return i;
        }
    }
    return n;
}

}  // namespace

std::size_t narrow_floats_portable(SmallFloat type, std::span<const float> values,
                                   std::uint8_t* out) {
    return type == SmallFloat::f16 ? narrow_all<SmallFloat::f16>(values, out)
                                   : narrow_all<SmallFloat::bf16>(values, out);
}

void widen_halves_portable(SmallFloat type, const std::uint8_t* in, std::span<float> out) {
    // One loop per type, so the compiler may vectorise bf16's shift.
    const auto half = [in](std::size_t i) {
        return static_cast<std::uint16_t>(in[2 * i] | (in[2 * i + 1] << 8));
    };
    if (type == SmallFloat::bf16) {
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = bf16_to_float(half(i));
        return;
    }
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = f16_to_float(half(i));
}

float f16_to_float(std::uint16_t h) {
    const std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1fu;
    const std::uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    if (exponent == 0) {
        // Zero or subnormal: mantissa * 2^-24 is exact in binary32.
        const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -magnitude : magnitude;
    }
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

}  // namespace gradcodec
