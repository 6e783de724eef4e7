// The vector conversion paths (F16C, AVX-512 BF16, AVX2) against the portable code, byte for byte,
// on every input class where the instructions' own rules differ: subnormals, overflow to infinity,
// NaN payloads (quiet and signalling, both signs), and the rounding boundaries. A path this CPU
// lacks is reported and skipped.
#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/small_float.hpp"

using namespace gradcodec;

namespace {

const char* path_name(ConversionPath p) {
    switch (p) {
        case ConversionPath::f16c:
            return "F16C";
        case ConversionPath::avx512_bf16:
            return "AVX-512 BF16";
        case ConversionPath::avx2:
            return "AVX2";
        case ConversionPath::portable:
            break;
    }
    return "portable";
}

std::vector<float> from_bits(const std::vector<std::uint32_t>& bits) {
    std::vector<float> out(bits.size());
    if (!bits.empty()) std::memcpy(out.data(), bits.data(), 4 * bits.size());
    return out;
}

// Patterns of every class, signs included: a strided sweep of all 2^32, every f32 subnormal
// near the ends of its range, every NaN payload bit alone, and each type's rounding
// boundaries with their neighbours.
std::vector<std::uint32_t> every_class() {
    std::vector<std::uint32_t> bits;
    for (std::uint64_t b = 0; b <= 0xffffffffull; b += 65521)
        bits.push_back(static_cast<std::uint32_t>(b));
    for (std::uint32_t sign : {0u, 0x80000000u}) {
        for (std::uint32_t m = 0; m < 4096; ++m) {
            bits.push_back(sign | m);                // tiny subnormals and zero
            bits.push_back(sign | (0x7fffffu - m));  // the largest subnormals
        }
        for (int b = 0; b < 23; ++b) {
            bits.push_back(sign | 0x7f800000u | (1u << b));         // signalling NaNs
            bits.push_back(sign | 0x7fc00000u | (1u << b));         // quiet NaNs
            bits.push_back(sign | 0x7f800000u | (0x7fffffu >> b));  // wide payloads
        }
        bits.push_back(sign | 0x7f800000u);  // infinity
        // f16: the subnormal range (2^-25 .. 2^-14) and the top of the normal range.
        for (std::uint32_t e = 0x32800000u; e <= 0x38800000u; e += 0x00800000u) {
            for (std::uint32_t m = 0; m < 0x800000u; m += 0x1001u) bits.push_back(sign | (e + m));
        }
        for (std::uint32_t d = 0; d < 4096; ++d) bits.push_back(sign | (0x477fe000u + d));
        // The last value that stays finite and the first that overflows, for each type.
        for (const std::uint32_t first_overflow : {0x477ff000u, 0x7f7f8000u}) {
            bits.push_back(sign | (first_overflow - 1));
            bits.push_back(sign | first_overflow);
        }
        // bf16: halfway points of the 16 dropped bits, below the top of the range.
        for (std::uint32_t e = 0; e < 255; ++e) {
            for (std::uint32_t low : {0x7fffu, 0x8000u, 0x8001u, 0x18000u})
                bits.push_back(sign | e << 23 | low);
        }
    }
    return bits;
}

// The portable rule's overflow marker, for splitting the classes.
bool overflows(SmallFloat type, std::uint32_t bits) {
    return (narrow_float_bits(type, std::bit_cast<float>(bits)) & kNarrowOverflow) != 0;
}

void check_narrowing(ConversionPath path, SmallFloat type) {
    const auto all = every_class();
    std::vector<std::uint32_t> in_range, beyond;
    for (const std::uint32_t b : all) (overflows(type, b) ? beyond : in_range).push_back(b);
    REQUIRE(!beyond.empty());
    // Every length from 0 to 40 and the whole set, so that each tail path runs.
    for (std::size_t n = 0; n <= in_range.size();
         n = n < 40 ? n + 1 : (n == in_range.size() ? n + 1 : in_range.size())) {
        const auto values = from_bits(std::vector<std::uint32_t>(
            in_range.begin(), in_range.begin() + static_cast<std::ptrdiff_t>(n)));
        std::vector<std::uint8_t> want(2 * n), got(2 * n);
        REQUIRE(narrow_floats_portable(type, values, want.data()) == n);
        REQUIRE(narrow_floats_on(path, type, values, got.data()) == n);
        if (got != want) {
            for (std::size_t i = 0; i < n; ++i) {
                if (got[2 * i] != want[2 * i] || got[2 * i + 1] != want[2 * i + 1]) {
                    FAIL(path_name(path) << ": input 0x" << std::hex << in_range[i] << " differs");
                }
            }
        }
    }
    // One overflowing value placed at several positions: both report the same index. The
    // smallest overflowing magnitude is among them, where an off-by-one would show.
    const auto magnitude = [](std::uint32_t b) { return b & 0x7fffffffu; };
    const std::uint32_t least = *std::min_element(
        beyond.begin(), beyond.end(),
        [&](std::uint32_t x, std::uint32_t y) { return magnitude(x) < magnitude(y); });
    for (const std::size_t at : {std::size_t{0}, std::size_t{7}, std::size_t{15}, std::size_t{1023},
                                 std::size_t{1024}, std::size_t{3001}}) {
        for (const std::uint32_t bad : {beyond.front(), beyond.back(), least}) {
            auto bits = std::vector<std::uint32_t>(in_range.begin(), in_range.begin() + 4000);
            bits[at] = bad;
            const auto values = from_bits(bits);
            std::vector<std::uint8_t> out(2 * values.size());
            CHECK(narrow_floats_on(path, type, values, out.data()) == at);
        }
    }
}

// Widens every 16-bit pattern, and a ragged tail of 5, on `path`; counts the values whose bits
// differ from the portable code's.
std::uint64_t widening_mismatches(ConversionPath path, SmallFloat type) {
    std::vector<std::uint8_t> halves(2 * 65536 + 2 * 5);
    for (std::uint32_t h = 0; h < 65536 + 5; ++h) {
        halves[2 * h] = static_cast<std::uint8_t>(h);
        halves[2 * h + 1] = static_cast<std::uint8_t>(h >> 8);
    }
    std::vector<float> want(65536 + 5), got(65536 + 5);
    widen_halves_portable(type, halves.data(), want);
    widen_halves_on(path, type, halves.data(), got);
    std::uint64_t mismatches = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
        mismatches +=
            std::bit_cast<std::uint32_t>(want[i]) != std::bit_cast<std::uint32_t>(got[i]) ? 1 : 0;
    return mismatches;
}

// Whether `path` runs on this CPU; says so in the test's output when it does not.
bool runs_here(ConversionPath path) {
    if (cpu_supports(path)) return true;
    WARN("this CPU has no " << path_name(path) << "; only the portable path runs here");
    return false;
}

}  // namespace

TEST_CASE("F16C narrowing writes the portable code's bytes for every input class",
          "[small_float]") {
    if (!runs_here(ConversionPath::f16c)) return;
    check_narrowing(ConversionPath::f16c, SmallFloat::f16);
}

TEST_CASE("AVX-512 BF16 narrowing writes the portable code's bytes for every input class",
          "[small_float]") {
    if (!runs_here(ConversionPath::avx512_bf16)) return;
    check_narrowing(ConversionPath::avx512_bf16, SmallFloat::bf16);
}

TEST_CASE("AVX2 narrowing writes the portable code's bytes for every bf16 input class",
          "[small_float]") {
    if (!runs_here(ConversionPath::avx2)) return;
    check_narrowing(ConversionPath::avx2, SmallFloat::bf16);
}

TEST_CASE("F16C widening gives the portable bits for all 65536 halves, NaN payloads included",
          "[small_float]") {
    if (!runs_here(ConversionPath::f16c)) return;
    CHECK(widening_mismatches(ConversionPath::f16c, SmallFloat::f16) == 0);
}

TEST_CASE("AVX2 widening gives the portable bits for all 65536 bf16 values, NaN payloads included",
          "[small_float]") {
    if (!runs_here(ConversionPath::avx2)) return;
    CHECK(widening_mismatches(ConversionPath::avx2, SmallFloat::bf16) == 0);
}

TEST_CASE("the dispatched conversions are the best path this CPU supports", "[small_float]") {
    for (const SmallFloat type : {SmallFloat::f16, SmallFloat::bf16}) {
        const ConversionPath best = best_conversion_path(type);
        CHECK(cpu_supports(best));
        const std::vector<float> values{1.0f, -2.5f, 65504.0f, 1e-7f};
        std::vector<std::uint8_t> a(8), b(8);
        CHECK(narrow_floats(type, values, a.data()) ==
              narrow_floats_on(best, type, values, b.data()));
        CHECK(a == b);
        const ConversionPath widening = best_widening_path(type);
        CHECK(cpu_supports(widening));
        std::vector<float> wide(4);
        widen_halves(type, a.data(), wide);
        CHECK(widen_from(type, static_cast<std::uint16_t>(a[2] | (a[3] << 8))) == wide[1]);
    }
}
