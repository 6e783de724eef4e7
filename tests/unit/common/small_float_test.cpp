#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "common/small_float.hpp"

using namespace gradcodec;

TEST_CASE("f16 narrowing rounds to nearest with ties to even", "[small_float]") {
    CHECK(narrow_to(SmallFloat::f16, 1.0) == 0x3c00);
    CHECK(narrow_to(SmallFloat::f16, -2.0) == 0xc000);
    CHECK(narrow_to(SmallFloat::f16, 65504.0) == 0x7bff);
    // 1 + 2^-11 is exactly halfway between 1 and the next f16: ties go to the even mantissa.
    CHECK(narrow_to(SmallFloat::f16, 1.0 + std::ldexp(1.0, -11)) == 0x3c00);
    CHECK(narrow_to(SmallFloat::f16, 1.0 + 3 * std::ldexp(1.0, -11)) == 0x3c02);
    CHECK(narrow_to(SmallFloat::f16, std::ldexp(1.0, -24)) == 0x0001);  // smallest subnormal
    CHECK(narrow_to(SmallFloat::f16, std::ldexp(1.0, -25)) == 0x0000);  // halfway to it: even is 0
    CHECK(narrow_to(SmallFloat::f16, -0.0) == 0x8000);
}

TEST_CASE("a finite value beyond the f16 range is reported, not turned into inf", "[small_float]") {
    CHECK_FALSE(narrow_to(SmallFloat::f16, 65520.0).has_value());  // rounds past the max
    CHECK(narrow_to(SmallFloat::f16, 65519.0) == 0x7bff);
    CHECK(narrow_to(SmallFloat::f16, std::numeric_limits<double>::infinity()) == 0x7c00);
    const auto nan = narrow_to(SmallFloat::f16, std::nan(""));
    REQUIRE(nan.has_value());
    CHECK(std::isnan(f16_to_float(*nan)));
}

TEST_CASE("bf16 narrowing keeps the f32 exponent range", "[small_float]") {
    CHECK(narrow_to(SmallFloat::bf16, 1.0) == 0x3f80);
    CHECK(narrow_to(SmallFloat::bf16, 3.0e38) == 0x7f62);
    CHECK_FALSE(narrow_to(SmallFloat::bf16, 3.4e38).has_value());
    CHECK(bf16_to_float(0x3f80) == 1.0f);
}

TEST_CASE("every f16 bit pattern widens and narrows back to itself", "[small_float]") {
    for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
        const float f = f16_to_float(static_cast<std::uint16_t>(bits));
        if (std::isnan(f)) continue;
        const auto back = narrow_to(SmallFloat::f16, f);
        REQUIRE(back.has_value());
        REQUIRE(*back == bits);
    }
}

TEST_CASE("every bf16 bit pattern widens and narrows back to itself", "[small_float]") {
    for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
        const float f = bf16_to_float(static_cast<std::uint16_t>(bits));
        if (std::isnan(f)) continue;
        const auto back = narrow_to(SmallFloat::bf16, f);
        REQUIRE(back.has_value());
        REQUIRE(*back == bits);
    }
}
