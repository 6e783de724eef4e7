#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "common/parallel.hpp"
#include "quant/magnitude_histogram.hpp"
#include "quant/mantissa_choice.hpp"
#include "quant/range_float.hpp"

using namespace gradcodec;

namespace {

std::uint32_t encode_one(const RangeLadder& l, Rounding r, float x) {
    std::uint32_t c = 0;
    encode_range_floats(l, r, std::span<const float>(&x, 1), &c);
    return c;
}

float decode_one(const RangeLadder& l, std::uint32_t c) {
    float x = 0;
    decode_range_floats(l, &c, std::span<float>(&x, 1));
    return x;
}

// Magnitudes spread over many octaves, signs mixed, some exact zeros: the hard case for a
// ladder, unlike a narrow Laplace.
std::vector<float> log_spread_values(std::size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<float> exponent(-30.0f, 5.0f);
    std::bernoulli_distribution negative(0.5), zero(0.02);
    std::vector<float> v(n);
    for (float& x : v) {
        x = zero(rng) ? 0.0f : std::exp2(exponent(rng));
        if (negative(rng)) x = -x;
    }
    return v;
}

}  // namespace

TEST_CASE("the paper's Fig. 8 vector: 0.256 is code 9 and decodes to 0.25", "[rangeq]") {
    const auto ladder = ladder_from_eps(8, 3, 0.125);
    REQUIRE(ladder);
    CHECK(ladder->pbase == 992);
    CHECK(std::bit_cast<std::uint32_t>(0.256f) == 0x3E83126Fu);
    CHECK(encode_one(*ladder, Rounding::truncate, 0.256f) == 9);
    CHECK(decode_one(*ladder, 9) == 0.25f);
    // The sign bit sits above the 7-bit magnitude code: -0.256 is 0x80 | 9.
    CHECK(encode_one(*ladder, Rounding::truncate, -0.256f) == 0x89);
    CHECK(decode_one(*ladder, 0x89) == -0.25f);
    CHECK(ladder->eps() == 0.125f);
    CHECK(encode_one(*ladder, Rounding::truncate, 2.0f) == 33);  // the paper's max, 1024-992+1
}

TEST_CASE("nearest rounding keeps |x - x^| <= 2^-(m+1) |x| over [eps, max]", "[rangeq]") {
    std::mt19937 rng(2024);
    for (int trial = 0; trial < 300; ++trial) {
        const int bits = std::uniform_int_distribution<int>(2, 16)(rng);
        const int m = std::uniform_int_distribution<int>(min_mantissa(bits), 23)(rng);
        const auto values = log_spread_values(500, rng);
        float max_abs = 0;
        for (float x : values) max_abs = std::max(max_abs, std::fabs(x));
        const RangeLadder l = ladder_from_max(bits, m, max_abs, Rounding::nearest);
        REQUIRE(ladder_is_valid(l));
        std::vector<std::uint32_t> codes(values.size());
        std::vector<float> back(values.size());
        encode_range_floats(l, Rounding::nearest, values, codes.data());
        decode_range_floats(l, codes.data(), std::span<float>(back));
        const double bound = std::ldexp(1.0, -(m + 1));
        const double lowest = std::max(l.eps(), std::numeric_limits<float>::min());
        for (std::size_t i = 0; i < values.size(); ++i) {
            const double a = std::fabs(values[i]);
            INFO("trial " << trial << " bits " << bits << " m " << m << " x " << values[i] << " -> "
                          << back[i] << " eps " << l.eps());
            CHECK(std::signbit(back[i]) == std::signbit(values[i]));
            if (a >= lowest && a <= max_abs) {
                CHECK(std::fabs(a - std::fabs(static_cast<double>(back[i]))) <= bound * a);
            } else if (a < l.eps()) {
                // Below eps: 0 or eps, whichever is nearer (ties to eps).
                CHECK(std::fabs(back[i]) == (a >= l.eps() / 2.0 ? l.eps() : 0.0f));
            }
        }
    }
}

TEST_CASE("with an explicit eps the bound holds over [eps, top] and the top clamps", "[rangeq]") {
    std::mt19937 rng(77);
    int tried = 0;
    for (int trial = 0; trial < 400 && tried < 150; ++trial) {
        const int bits = std::uniform_int_distribution<int>(2, 16)(rng);
        const int m = std::uniform_int_distribution<int>(min_mantissa(bits), 23)(rng);
        const double eps = std::exp2(std::uniform_real_distribution<double>(-40.0, 0.0)(rng));
        const auto ladder = ladder_from_eps(bits, m, eps);
        if (!ladder) continue;
        ++tried;
        const auto values = log_spread_values(400, rng);
        const double bound = std::ldexp(1.0, -(m + 1));
        for (const float x : values) {
            const float y = decode_one(*ladder, encode_one(*ladder, Rounding::nearest, x));
            const double a = std::fabs(x);
            INFO("bits " << bits << " m " << m << " eps " << ladder->eps() << " x " << x);
            if (a >= std::max(ladder->eps(), std::numeric_limits<float>::min()) &&
                a <= ladder->top()) {
                CHECK(std::fabs(a - std::fabs(y)) <= bound * a);
            } else if (a > ladder->top()) {
                CHECK(std::fabs(y) == ladder->top());
            } else if (a < ladder->eps()) {
                CHECK(std::fabs(y) == (a >= ladder->eps() / 2.0 ? ladder->eps() : 0.0f));
            }
        }
    }
    CHECK(tried >= 100);
}

TEST_CASE("truncation rounds magnitudes toward zero within one step", "[rangeq]") {
    std::mt19937 rng(99);
    for (int trial = 0; trial < 100; ++trial) {
        const int bits = std::uniform_int_distribution<int>(4, 16)(rng);
        const int m = std::uniform_int_distribution<int>(min_mantissa(bits), 10)(rng);
        const auto values = log_spread_values(300, rng);
        float max_abs = 0;
        for (float x : values) max_abs = std::max(max_abs, std::fabs(x));
        const RangeLadder l = ladder_from_max(bits, m, max_abs, Rounding::truncate);
        CHECK(l.top() <= max_abs);
        for (const float x : values) {
            const float y = decode_one(l, encode_one(l, Rounding::truncate, x));
            const double a = std::fabs(x);
            if (a >= std::max(l.eps(), std::numeric_limits<float>::min())) {
                CHECK(std::fabs(y) <= a);
                CHECK(a - std::fabs(y) < std::ldexp(1.0, -m) * a);
            }
        }
    }
}

TEST_CASE("below eps a value goes to 0 or eps, whichever is nearer", "[rangeq]") {
    const RangeLadder l = *ladder_from_eps(8, 3, 0.125);
    for (const Rounding r : {Rounding::nearest, Rounding::truncate}) {
        CHECK(decode_one(l, encode_one(l, r, 0.0624f)) == 0.0f);
        CHECK(decode_one(l, encode_one(l, r, 0.0625f)) == 0.125f);  // the tie goes to eps
        CHECK(decode_one(l, encode_one(l, r, 0.1f)) == 0.125f);
        CHECK(decode_one(l, encode_one(l, r, -0.1f)) == -0.125f);
        CHECK(decode_one(l, encode_one(l, r, 1e-30f)) == 0.0f);
    }
}

TEST_CASE("at and above the top a magnitude takes the top code", "[rangeq]") {
    const RangeLadder l = *ladder_from_eps(8, 3, 0.125);
    CHECK(l.top() == 7168.0f);  // key 992 + 126 = 1118: 1.75 * 2^12
    CHECK(encode_one(l, Rounding::nearest, 7168.0f) == 127);
    CHECK(encode_one(l, Rounding::nearest, 1e30f) == 127);
    CHECK(decode_one(l, encode_one(l, Rounding::nearest, -1e30f)) == -7168.0f);
    // Ladders from the max put the max itself on the top code.
    const RangeLadder from_max = ladder_from_max(8, 3, 0.75f, Rounding::nearest);
    CHECK(from_max.top() == 0.75f);
    CHECK(encode_one(from_max, Rounding::nearest, 0.75f) == 127);
}

TEST_CASE("zero and negative zero decode to zeros of the same sign", "[rangeq]") {
    const RangeLadder l = ladder_from_max(8, 3, 1.0f, Rounding::nearest);
    CHECK(encode_one(l, Rounding::nearest, 0.0f) == 0);
    CHECK(encode_one(l, Rounding::nearest, -0.0f) == 0x80);
    CHECK(std::signbit(decode_one(l, 0x80)));
    CHECK(decode_one(l, 0x80) == 0.0f);
}

TEST_CASE("every code of every valid ladder decodes to a finite value", "[rangeq]") {
    for (int bits = 2; bits <= 16; ++bits) {
        CHECK(max_finite_key(min_mantissa(bits)) >= (1u << (bits - 1)) - 1);
        for (int m = min_mantissa(bits); m <= 23; ++m) {
            for (const float max_abs : {0.0f, 1e-40f, 1.0f, std::numeric_limits<float>::max()}) {
                const RangeLadder l = ladder_from_max(bits, m, max_abs, Rounding::nearest);
                REQUIRE(ladder_is_valid(l));
                CHECK(std::isfinite(l.top()));
                CHECK(l.eps() > 0.0f);
            }
        }
    }
    CHECK_FALSE(ladder_is_valid(RangeLadder{8, 3, 0}));
    CHECK_FALSE(ladder_is_valid(RangeLadder{9, 0, 1}));  // 255 codes, 254 finite exponents
    CHECK_FALSE(ladder_is_valid(RangeLadder{8, 3, max_finite_key(3) - 125}));
    CHECK(ladder_is_valid(RangeLadder{8, 3, max_finite_key(3) - 126}));
}

TEST_CASE("an eps outside the ladder's range is refused", "[rangeq]") {
    CHECK_FALSE(ladder_from_eps(8, 3, 0.0));
    CHECK_FALSE(ladder_from_eps(8, 3, 1e38));   // the top would pass FLT_MAX
    CHECK_FALSE(ladder_from_eps(8, 3, 1e-45));  // finer than m=3 keys can be
    CHECK(ladder_from_eps(8, 23, 1e-45));
}

namespace {

double squared_error(const std::vector<float>& values, const RangeLadder& l) {
    std::vector<std::uint32_t> codes(values.size());
    std::vector<float> back(values.size());
    encode_range_floats(l, Rounding::nearest, values, codes.data());
    decode_range_floats(l, codes.data(), std::span<float>(back));
    double e = 0;
    for (std::size_t i = 0; i < values.size(); ++i)
        e += (values[i] - back[i]) * (values[i] - back[i]);
    return e;
}

}  // namespace

TEST_CASE("on large tensors the histogram's choice of m is within 10% of the best error",
          "[rangeq]") {
    std::mt19937 rng(8);
    for (int trial = 0; trial < 12; ++trial) {
        const int bits = std::uniform_int_distribution<int>(3, 16)(rng);
        std::vector<float> values = log_spread_values(20000, rng);
        if (trial % 2 == 0) {  // gradient-like: Laplace, a quarter exact zeros
            std::exponential_distribution<float> magnitude(1000.0f);
            for (std::size_t i = 0; i < values.size(); ++i) {
                values[i] = i % 4 == 0 ? 0.0f : (i % 2 ? -1.0f : 1.0f) * magnitude(rng);
            }
        }
        float max_abs = 0;
        for (float x : values) max_abs = std::max(max_abs, std::fabs(x));
        const LadderAnchor anchor{max_abs, std::nullopt};
        const int chosen = *choose_mantissa(bits, Rounding::nearest, anchor, values);
        const double error =
            squared_error(values, ladder_from_max(bits, chosen, max_abs, Rounding::nearest));
        double best = std::numeric_limits<double>::infinity();
        for (const int m : mantissa_candidates(bits, anchor)) {
            best = std::min(
                best, squared_error(values, ladder_from_max(bits, m, max_abs, Rounding::nearest)));
        }
        INFO("trial " << trial << " bits " << bits << " chosen m " << chosen);
        CHECK(error <= 1.1 * best);
    }
}

TEST_CASE("on small tensors the chosen mantissa has the least error of all candidates",
          "[rangeq]") {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 40; ++trial) {
        const int bits = std::uniform_int_distribution<int>(3, 12)(rng);
        const auto values = log_spread_values(1000, rng);
        float max_abs = 0;
        for (float x : values) max_abs = std::max(max_abs, std::fabs(x));
        const LadderAnchor anchor{max_abs, std::nullopt};
        const int chosen = *choose_mantissa(bits, Rounding::nearest, anchor, values);
        auto error = [&](int m) {
            const RangeLadder l = ladder_from_max(bits, m, max_abs, Rounding::nearest);
            double e = 0;
            for (float x : values) {
                const double d = x - decode_one(l, encode_one(l, Rounding::nearest, x));
                e += d * d;
            }
            return e;
        };
        const double best = error(chosen);
        for (const int m : mantissa_candidates(bits, anchor)) CHECK(best <= error(m));
    }
}

namespace {

// Patterns of every class the quantizer treats apart, both signs: zeros, subnormals, values
// around eps and half eps, every step boundary of the ladder's octaves (and their
// neighbours), the top and beyond, the largest finite float, infinities and NaNs (which
// callers replace, but the codes must still match).
std::vector<float> every_range_class(const RangeLadder& l, std::mt19937& rng) {
    std::vector<std::uint32_t> bits;
    const std::uint32_t eps = std::bit_cast<std::uint32_t>(l.eps());
    const std::uint32_t top = std::bit_cast<std::uint32_t>(l.top());
    const std::uint32_t half_eps = std::bit_cast<std::uint32_t>(l.eps() / 2);
    const std::uint32_t three_quarters_eps = std::bit_cast<std::uint32_t>(l.eps() * 0.75f);
    const std::uint32_t step = 1u << l.shift();
    for (std::uint32_t sign : {0u, 0x80000000u}) {
        for (std::uint32_t b : {0u, 1u, 0x7fffffu, 0x800000u, 0x7f7fffffu, 0x7f800000u, 0x7fc00001u,
                                0x7f800001u, 0x7fffffffu}) {
            bits.push_back(sign | b);
        }
        for (std::uint32_t key = half_eps - std::min(half_eps, 2 * step); key <= top + 2 * step;
             key += step / 4 + 1)
            bits.push_back(sign | key);
        for (std::int64_t d = -3; d <= 3; ++d) {
            for (std::uint32_t anchor : {eps, half_eps, three_quarters_eps, top, top + step / 2})
                bits.push_back(sign | static_cast<std::uint32_t>(anchor + d));
        }
    }
    for (int i = 0; i < 5000; ++i) bits.push_back(static_cast<std::uint32_t>(rng()));
    std::vector<float> out;
    out.reserve(bits.size());
    for (const std::uint32_t b : bits) out.push_back(std::bit_cast<float>(b));
    return out;
}

template <typename Code>
void check_vector_path_matches_portable(VectorPath path, int bits, std::mt19937& rng) {
    std::uniform_int_distribution<int> pick(0, 1000);
    for (int m = min_mantissa(bits); m <= std::min(bits - 1, kRangeMaxMantissa); ++m) {
        const float max_abs = std::ldexp(1.0f, pick(rng) % 60 - 30);
        for (const Rounding r : {Rounding::nearest, Rounding::truncate}) {
            const RangeLadder l = ladder_from_max(bits, m, max_abs, r);
            const auto values = every_range_class(l, rng);
            // Every length up to 70 and the whole set, so that each tail path runs.
            for (std::size_t n = 0; n <= values.size(); n = n < 70 ? n + 1 : values.size() + 1) {
                const std::span<const float> in(values.data(), std::min(n, values.size()));
                std::vector<Code> want(in.size()), got(in.size());
                encode_range_floats_on(VectorPath::portable, l, r, in, want.data());
                encode_range_floats_on(path, l, r, in, got.data());
                INFO("path " << static_cast<int>(path) << " bits " << bits << " m " << m << " n "
                             << in.size());
                REQUIRE(got == want);
            }
        }
    }
}

}  // namespace

TEST_CASE("the quantizer's vector paths write the portable path's codes on every input class",
          "[rangeq]") {
    // A path this CPU lacks runs the portable code, and its section checks nothing more.
    for (const VectorPath path : {VectorPath::avx2, VectorPath::avx512}) {
        DYNAMIC_SECTION("path " << static_cast<int>(path)
                                << (cpu_supports(path) ? "" : " (absent)")) {
            std::mt19937 rng(16);
            for (int bits = 2; bits <= 8; ++bits)
                check_vector_path_matches_portable<std::uint8_t>(path, bits, rng);
            for (int bits = 2; bits <= 16; ++bits)
                check_vector_path_matches_portable<std::uint16_t>(path, bits, rng);
            for (int bits = 2; bits <= 16; bits += 3)
                check_vector_path_matches_portable<std::uint32_t>(path, bits, rng);
        }
    }
}

TEST_CASE("a magnitude survey counts every value in its bin, at any length and alignment",
          "[rangeq]") {
    std::mt19937 rng(23);
    std::vector<float> values = log_spread_values(9000, rng);
    values[7] = std::numeric_limits<float>::quiet_NaN();
    values[4099] = -std::numeric_limits<float>::denorm_min();
    values[4100] = -0.0f;
    values[8191] = std::numeric_limits<float>::max();
    // Lengths around the four-value steps and the blocks of the scan, from an odd start too.
    for (const std::size_t first : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
        for (const std::size_t size :
             {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{5},
              std::size_t{4095}, std::size_t{4097}, std::size_t{8190}, std::size_t{8996}}) {
            const std::span<const float> part(values.data() + first, size);
            std::array<std::uint64_t, kMagnitudeBins> expected{};
            std::uint32_t max_bits = 0;
            for (const float v : part) {
                const std::uint32_t magnitude = std::bit_cast<std::uint32_t>(v) & 0x7FFFFFFFu;
                ++expected[magnitude >> kMagnitudeBinShift];
                max_bits = std::max(max_bits, magnitude);
            }
            const MagnitudeSurvey survey = survey_magnitudes(part, true);
            CHECK(survey.counts == expected);
            CHECK(survey.max_bits == max_bits);
        }
    }
}

TEST_CASE("a magnitude survey counts and finds the same whatever the thread count", "[rangeq]") {
    std::mt19937 rng(4);
    std::vector<float> values = log_spread_values((std::size_t{3} << 20) + 77, rng);
    values[12345] = -std::numeric_limits<float>::infinity();
    const MagnitudeSurvey one = survey_magnitudes(values, true);
    REQUIRE(one.max_bits == 0x7f800000u);  // the infinity, sign cleared
    std::uint64_t counted = 0;
    for (const std::uint64_t c : one.counts) counted += c;
    CHECK(counted == values.size());
    CHECK(one.counts[kFirstNonFiniteBin] == 1);
    for (const unsigned threads : {2u, 3u, 8u}) {
        const ThreadScope scope(threads);
        const MagnitudeSurvey many = survey_magnitudes(values, true);
        CHECK(many.max_bits == one.max_bits);
        CHECK(many.counts == one.counts);
        CHECK(survey_magnitudes(values, false).max_bits == one.max_bits);
    }
    const MagnitudeSurvey max_only = survey_magnitudes(values, false);
    CHECK(!max_only.has_histogram);
    CHECK(max_only.max_bits == one.max_bits);
}
