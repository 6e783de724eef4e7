// The branch-free binary32 narrowing (narrow_float_bits, narrow_floats) against the reference
// narrow_to, which works in double. Mismatches are counted in plain loops and asserted once,
// so that millions of comparisons stay fast.
#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/small_float.hpp"

using namespace gradcodec;

namespace {

struct Mismatches {
    std::uint64_t count = 0;
    std::uint32_t first = 0;
    std::uint64_t checked = 0;
};

bool agrees(SmallFloat type, std::uint32_t bits) {
    const float x = std::bit_cast<float>(bits);
    const auto expected = narrow_to(type, x);
    const std::uint32_t got = narrow_float_bits(type, x);
    if (!expected)
        return (got & ~0x8000u) == kNarrowOverflow && (got & 0x8000u) == (bits >> 31 << 15);
    return got == *expected;
}

void check(SmallFloat type, std::uint32_t bits, Mismatches& m) {
    ++m.checked;
    if (agrees(type, bits)) return;
    if (m.count++ == 0) m.first = bits;
}

// Every mantissa that sits at, or one ulp either side of, a point where dropping its low s
// bits changes the rounding (zero, halfway, all ones), for every s that either type rounds
// at (13 for f16 normals, 14..23 for f16 subnormals, 16 for bf16), every high part, every
// exponent and both signs.
Mismatches boundary_sweep(SmallFloat type) {
    Mismatches m;
    for (std::uint32_t sign = 0; sign < 2; ++sign) {
        for (std::uint32_t exponent = 0; exponent < 256; ++exponent) {
            const std::uint32_t head = sign << 31 | exponent << 23;
            for (unsigned s = 13; s <= 23; ++s) {
                const std::uint32_t half = 1u << (s - 1);
                const std::uint32_t lows[] = {0, 1, half - 1, half, half + 1, (1u << s) - 1};
                for (std::uint32_t high = 0; high < (1u << (23 - s)); ++high) {
                    for (const std::uint32_t low : lows) check(type, head | high << s | low, m);
                }
            }
        }
    }
    return m;
}

Mismatches strided_sweep(SmallFloat type, std::uint64_t stride) {
    Mismatches m;
    for (std::uint64_t bits = 0; bits <= 0xffffffffull; bits += stride)
        check(type, static_cast<std::uint32_t>(bits), m);
    return m;
}

const char* name(SmallFloat type) {
    return type == SmallFloat::f16 ? "f16" : "bf16";
}

}  // namespace

TEST_CASE("fast narrowing matches narrow_to at every rounding boundary of every exponent",
          "[small_float]") {
    for (const SmallFloat type : {SmallFloat::f16, SmallFloat::bf16}) {
        const Mismatches m = boundary_sweep(type);
        INFO(name(type) << ": " << m.checked << " patterns, first mismatch 0x" << std::hex
                        << m.first);
        CHECK(m.count == 0);
    }
}

TEST_CASE("fast narrowing matches narrow_to on a strided sweep of all float bit patterns",
          "[small_float]") {
    for (const SmallFloat type : {SmallFloat::f16, SmallFloat::bf16}) {
        // 4093 is prime, so the sweep meets every residue of the low bits.
        const Mismatches m = strided_sweep(type, 4093);
        INFO(name(type) << ": " << m.checked << " patterns, first mismatch 0x" << std::hex
                        << m.first);
        CHECK(m.count == 0);
    }
}

// Hidden (about 3 minutes of one core): ./build/tests/unit_tests "[.small_float_exhaustive]".
TEST_CASE("fast narrowing matches narrow_to on all 2^32 float bit patterns",
          "[.small_float_exhaustive]") {
    for (const SmallFloat type : {SmallFloat::f16, SmallFloat::bf16}) {
        const Mismatches m = strided_sweep(type, 1);
        INFO(name(type) << ": first mismatch 0x" << std::hex << m.first);
        CHECK(m.checked == (std::uint64_t{1} << 32));
        CHECK(m.count == 0);
    }
}

TEST_CASE("fast narrowing keeps signed zeros, infinities and a quiet NaN of the same sign",
          "[small_float]") {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    CHECK(narrow_float_bits(SmallFloat::f16, -0.0f) == 0x8000);
    CHECK(narrow_float_bits(SmallFloat::f16, -inf) == 0xfc00);
    CHECK(narrow_float_bits(SmallFloat::f16, -nan) == 0xfe00);
    CHECK(narrow_float_bits(SmallFloat::bf16, inf) == 0x7f80);
    CHECK(narrow_float_bits(SmallFloat::bf16, nan) == 0x7fc0);
    CHECK(narrow_float_bits(SmallFloat::f16, 65519.996f) == 0x7bff);
    CHECK(narrow_float_bits(SmallFloat::f16, -65520.0f) == (0x8000 | kNarrowOverflow));
}

TEST_CASE("narrow_floats writes little-endian halves and names the first value that overflows",
          "[small_float]") {
    std::vector<float> v(3000);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.37f - 500.0f;
    std::vector<std::uint8_t> out(2 * v.size());
    REQUIRE(narrow_floats(SmallFloat::f16, v, out.data()) == v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        const auto h = static_cast<std::uint16_t>(out[2 * i] | out[2 * i + 1] << 8);
        REQUIRE(h == *narrow_to(SmallFloat::f16, v[i]));
    }
    v[2100] = 1e6f;
    v[2500] = -1e6f;
    CHECK(narrow_floats(SmallFloat::f16, v, out.data()) == 2100);
    CHECK(narrow_floats(SmallFloat::bf16, v, out.data()) == v.size());
    v[7] = 3.4e38f;
    CHECK(narrow_floats(SmallFloat::bf16, v, out.data()) == 7);
}
