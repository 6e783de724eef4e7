#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <vector>

#include "codec/codec_def.hpp"
#include "common/byte_io.hpp"
#include "expect_error.hpp"
#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"
#include "quant/range_section.hpp"
#include "test_data.hpp"

using namespace gradcodec;
using gradcodec::testing::laplace_values;
using gradcodec::testing::thrown_error;

namespace {

EncodedTensor encode(const std::string& spec, const std::vector<float>& v,
                     const EncodeOptions& options = {}) {
    const TensorMeta meta{"t", DType::f32, {v.size()}};
    return encode_tensor(parse_codec_spec(spec), meta, std::as_bytes(std::span(v)), options);
}

std::vector<float> decode(const std::vector<std::uint8_t>& payload, std::size_t n) {
    const TensorMeta meta{"t", DType::f32, {n}};
    std::vector<float> out(n);
    decode_tensor(kCodecRangeq, meta, payload, std::as_writable_bytes(std::span(out)));
    return out;
}

RangeSectionHeader header_of(const std::vector<std::uint8_t>& payload, std::size_t n) {
    ByteReader r(payload, "test");
    return skip_range_section(r, n);
}

void expect_damaged(const std::vector<std::uint8_t>& payload, std::size_t n, const char* what) {
    INFO(what);
    const auto e = thrown_error([&] { decode(payload, n); });
    CHECK(e.kind() == ErrorKind::damaged_stream);
}

void expect_usage(const std::string& spec, const std::string& needle) {
    INFO(spec);
    const auto e = thrown_error([&] { validate_codec_spec(parse_codec_spec(spec)); });
    CHECK(e.kind() == ErrorKind::usage);
    CHECK_THAT(e.what(), Catch::Contains(needle));
}

// samples/ of the source tree: from the build's definition where it has one, else found
// beside this file (tests/unit/codec/ -> ../../../samples).
std::string samples_dir() {
#ifdef GRADCODEC_SAMPLES_DIR
    return GRADCODEC_SAMPLES_DIR;
#else
    const std::string here = __FILE__;
    return here.substr(0, here.rfind("tests/unit/")) + "samples";
#endif
}

std::vector<std::uint8_t> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("the codec encodes the Fig. 8 vector to code 9 and decodes it to 0.25", "[rangeq]") {
    const auto e = encode("rangeq:bits=8,mantissa=3,eps=0.125,round=truncate", {0.256f});
    CHECK(e.codec_id == kCodecRangeq);
    // bits 8, mantissa 3, flags truncate, pbase 992 (0x3E0) little-endian, then the code.
    CHECK(e.payload == std::vector<std::uint8_t>{8, 3, 1, 0xE0, 0x03, 0, 0, 9});
    CHECK(decode(e.payload, 1) == std::vector<float>{0.25f});
}

TEST_CASE("rangeq round trips keep the error bound on random tensors at every width", "[rangeq]") {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 60; ++trial) {
        const int bits = 2 + trial % 15;
        const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 5000)(rng);
        const auto v = laplace_values(
            n, rng(), std::ldexp(1.0f, -std::uniform_int_distribution<int>(0, 20)(rng)));
        const auto e = encode("rangeq:bits=" + std::to_string(bits), v);
        INFO("bits " << bits << " n " << n);
        CHECK(e.payload.size() == 7 + (n * static_cast<std::size_t>(bits) + 7) / 8);
        const auto h = header_of(e.payload, n);
        const auto back = decode(e.payload, n);
        const double bound = std::ldexp(1.0, -(h.ladder.mantissa + 1));
        float max_abs = 0;
        for (float x : v) max_abs = std::max(max_abs, std::fabs(x));
        for (std::size_t i = 0; i < n; ++i) {
            const double a = std::fabs(v[i]);
            if (a >= h.ladder.eps() && a >= std::numeric_limits<float>::min() && a <= max_abs) {
                CHECK(std::fabs(a - std::fabs(back[i])) <= bound * a);
                CHECK(std::signbit(back[i]) == std::signbit(v[i]));
            } else if (a < h.ladder.eps()) {
                CHECK(std::fabs(back[i]) == (a >= h.ladder.eps() / 2.0 ? h.ladder.eps() : 0.0f));
            }
        }
    }
}

TEST_CASE("8-bit rangeq on Laplace values has a small relative error", "[rangeq]") {
    const auto v = laplace_values(100000, 3);
    const auto back = decode(encode("rangeq", v).payload, v.size());
    double err = 0, norm = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        err += (v[i] - back[i]) * (v[i] - back[i]);
        norm += v[i] * v[i];
    }
    CHECK(std::sqrt(err / norm) < 0.03);
}

TEST_CASE("an explicit mantissa and rounding travel in the payload", "[rangeq]") {
    const auto v = laplace_values(100, 4);
    const auto h = header_of(encode("rangeq:bits=10,mantissa=5,round=truncate", v).payload, 100);
    CHECK(h.ladder.bits == 10);
    CHECK(h.ladder.mantissa == 5);
    CHECK(h.flags == kRangeFlagTruncate);
}

TEST_CASE("an all-zero tensor and an empty tensor round-trip", "[rangeq]") {
    const std::vector<float> zeros{0.0f, -0.0f, 0.0f};
    const auto back = decode(encode("rangeq", zeros).payload, 3);
    CHECK(back == zeros);
    CHECK(std::signbit(back[1]));
    const auto empty = encode("rangeq:bits=5", {});
    CHECK(empty.payload.size() == 7);
    CHECK(decode(empty.payload, 0).empty());
}

TEST_CASE("non-finite values are refused with the tensor's name and index", "[rangeq]") {
    std::vector<float> v(10, 1.0f);
    v[7] = std::numeric_limits<float>::quiet_NaN();
    const auto e = thrown_error([&] { encode("rangeq", v); });
    CHECK(e.kind() == ErrorKind::bad_input);
    CHECK_THAT(e.what(), Catch::Contains("t: element 7 is NaN"));
}

TEST_CASE("with allow_nonfinite NaN and inf are carried bit for bit", "[rangeq]") {
    auto v = laplace_values(1000, 5);
    const float odd_nan = std::bit_cast<float>(0xFFC01234u);
    v[0] = std::numeric_limits<float>::infinity();
    v[500] = odd_nan;
    v[999] = -std::numeric_limits<float>::infinity();
    EncodeOptions allow;
    allow.allow_nonfinite = true;
    const auto e = encode("rangeq:bits=6", v, allow);
    CHECK(header_of(e.payload, v.size()).exception_count == 3);
    const auto back = decode(e.payload, v.size());
    CHECK(std::bit_cast<std::uint32_t>(back[0]) == 0x7F800000u);
    CHECK(std::bit_cast<std::uint32_t>(back[500]) == 0xFFC01234u);
    CHECK(std::bit_cast<std::uint32_t>(back[999]) == 0xFF800000u);
    // The finite values keep the bound of a ladder anchored to the finite max.
    const auto h = header_of(e.payload, v.size());
    for (std::size_t i = 1; i < 999; ++i) {
        if (i == 500 || std::fabs(v[i]) < h.ladder.eps()) continue;
        CHECK(std::fabs(v[i] - back[i]) <=
              std::ldexp(1.0, -(h.ladder.mantissa + 1)) * std::fabs(v[i]));
    }
}

TEST_CASE("f16 tensors never decode past the f16 range", "[rangeq]") {
    // 65504 is the largest f16; a 4-bit ladder from it rounds up to 65536 unless clamped.
    const std::vector<std::uint16_t> halves{0x7BFF, 0xFBFF, 0x3C00, 0x0000};
    const TensorMeta meta{"h", DType::f16, {halves.size()}};
    const auto e = encode_tensor(parse_codec_spec("rangeq:bits=4,mantissa=0"), meta,
                                 std::as_bytes(std::span(halves)));
    std::vector<std::uint16_t> back(halves.size());
    decode_tensor(e.codec_id, meta, e.payload, std::as_writable_bytes(std::span(back)));
    CHECK(back[0] == 0x7800);  // 32768, the largest ladder value within f16
    CHECK(back[1] == 0xF800);
}

TEST_CASE("describe counts every payload bit as a value bit", "[rangeq]") {
    const auto v = laplace_values(1001, 6);
    const auto e = encode("rangeq", v);
    const auto s =
        describe_payload(kCodecRangeq, TensorMeta{"t", DType::f32, {v.size()}}, e.payload);
    CHECK(s.has_bit_split);
    CHECK(s.position_bits == 0);
    CHECK(s.value_bits == 8 * e.payload.size());
    CHECK(e.payload.size() == 7 + 1001);
}

TEST_CASE("bad rangeq specs are usage errors naming the valid range", "[rangeq]") {
    expect_usage("rangeq:bits=1", "2..16");
    expect_usage("rangeq:bits=17", "2..16");
    expect_usage("rangeq:mantissa=24", "0..23");
    expect_usage("rangeq:bits=16,mantissa=3", "8..23");
    expect_usage("rangeq:eps=0", "eps=0");
    expect_usage("rangeq:bits=8,mantissa=3,eps=1e38", "the ladder's top must stay finite");
    expect_usage("rangeq:bits=16,eps=3e38", "no mantissa");
    expect_usage("rangeq:round=up", "nearest|truncate");
    expect_usage("rangeq:bitz=8", "valid keys: bits, mantissa, eps, round");
    CHECK_NOTHROW(
        validate_codec_spec(parse_codec_spec("rangeq:bits=8,mantissa=3,eps=0.125,round=truncate")));
}

TEST_CASE("every truncation of a rangeq payload is refused as damage", "[rangeq]") {
    auto v = laplace_values(37, 7);
    v[3] = std::numeric_limits<float>::infinity();
    EncodeOptions allow;
    allow.allow_nonfinite = true;
    for (const char* spec : {"rangeq", "rangeq:bits=5", "rangeq:bits=16"}) {
        const auto e = encode(spec, v, allow);
        for (std::size_t len = 0; len < e.payload.size(); ++len) {
            expect_damaged({e.payload.begin(), e.payload.begin() + static_cast<long>(len)},
                           v.size(), spec);
        }
        auto longer = e.payload;
        longer.push_back(0);
        expect_damaged(longer, v.size(), "trailing byte");
    }
}

TEST_CASE("bad rangeq header values are refused as damage", "[rangeq]") {
    const auto v = laplace_values(5, 8);
    const auto good = encode("rangeq:bits=5", v).payload;  // 7 + 4 bytes, 25 bits used
    auto with = [&](std::size_t at, std::uint8_t value) {
        auto p = good;
        p[at] = value;
        return p;
    };
    expect_damaged(with(0, 1), 5, "bits 1");
    expect_damaged(with(0, 17), 5, "bits 17");
    expect_damaged(with(1, 24), 5, "mantissa 24");
    expect_damaged(with(2, 0x04), 5, "unknown flag");
    expect_damaged(with(2, kRangeFlagExceptions), 5, "exception list missing");
    auto zero_pbase = good;
    for (int i = 3; i < 7; ++i) zero_pbase[static_cast<std::size_t>(i)] = 0;
    expect_damaged(zero_pbase, 5, "pbase 0");
    auto huge_pbase = good;
    for (int i = 3; i < 7; ++i) huge_pbase[static_cast<std::size_t>(i)] = 0xFF;
    expect_damaged(huge_pbase, 5, "pbase past the finite range");
    expect_damaged(with(good.size() - 1, static_cast<std::uint8_t>(good.back() | 0x80)), 5,
                   "non-zero padding");
    expect_damaged(good, 7, "too few codes for the tensor");
}

TEST_CASE("bad non-finite lists are refused as damage", "[rangeq]") {
    std::vector<float> v{1.0f, std::numeric_limits<float>::infinity(), 2.0f,
                         std::numeric_limits<float>::quiet_NaN()};
    EncodeOptions allow;
    allow.allow_nonfinite = true;
    const auto good = encode("rangeq", v, allow).payload;
    // header 7, count u64 at 7, entries (u64 index, u32 bits) at 15 and 27, codes at 39.
    REQUIRE(good.size() == 7 + 8 + 24 + 4);
    auto count = [&](std::uint8_t c) {
        auto p = good;
        p[7] = c;
        return p;
    };
    expect_damaged(count(0), 4, "zero exceptions with the flag set");
    expect_damaged(count(5), 4, "more exceptions than values");
    expect_damaged(count(3), 4, "more exceptions than bytes");
    auto unordered = good;
    unordered[27] = 1;  // second index equal to the first
    expect_damaged(unordered, 4, "indices not increasing");
    auto past = good;
    past[27] = 4;
    expect_damaged(past, 4, "index past the tensor");
    auto finite = good;
    finite[15 + 8 + 3] = 0x3F;  // bits 0x3F800000 = 1.0f
    expect_damaged(finite, 4, "a finite exception");
}

TEST_CASE("random bytes never crash the rangeq decoder", "[rangeq]") {
    std::mt19937 rng(13);
    for (int trial = 0; trial < 2000; ++trial) {
        std::vector<std::uint8_t> p(std::uniform_int_distribution<std::size_t>(0, 40)(rng));
        for (auto& b : p) b = static_cast<std::uint8_t>(rng());
        if (p.size() > 0) p[0] = static_cast<std::uint8_t>(2 + p[0] % 15);
        if (p.size() > 1) p[1] = static_cast<std::uint8_t>(p[1] % 24);
        if (p.size() > 2) p[2] &= 0x03;
        try {
            decode(p, 7);
        } catch (const Error& e) {
            CHECK(e.kind() == ErrorKind::damaged_stream);
        }
    }
}

TEST_CASE("the worked example payload in samples/examples matches byte for byte", "[rangeq]") {
    // format-spec/codec-rangeq.md, "Worked example".
    const std::vector<float> values{0.256f, -0.256f, 0.0f, 2.0f, 0.05f, 0.07f, 10000.0f, -3.1f};
    const auto e = encode("rangeq:bits=8,mantissa=3,eps=0.125,round=truncate", values);
    const auto committed = read_file(samples_dir() + "/examples/rangeq-example.payload");
    CHECK(e.payload == committed);
    const std::vector<float> expected{0.25f, -0.25f, 0.0f, 2.0f, 0.0f, 0.125f, 7168.0f, -3.0f};
    CHECK(decode(committed, values.size()) == expected);
}
