#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "common/byte_io.hpp"
#include "common/small_float.hpp"
#include "common/spec_params.hpp"
#include "expect_error.hpp"
#include "gradcodec/codec_spec.hpp"
#include "gradcodec/error.hpp"
#include "quant/range_section.hpp"
#include "quant/value_coder.hpp"

using namespace gradcodec;
using gradcodec::testing::thrown_error;

namespace {

ValueCoderParams parse(const std::string& spec, ValueFormat fallback = ValueFormat::f16) {
    const CodecSpec s = parse_codec_spec(spec);
    SpecParams p(s);
    const ValueCoderParams out = parse_value_coder(p, fallback);
    p.finish();
    return out;
}

std::vector<std::uint8_t> encode(const ValueCoderParams& params, const std::vector<float>& v,
                                 const EncodeOptions& options = {}) {
    std::vector<std::uint8_t> bytes{0xAA};  // a byte before the section, as a codec header
    ByteWriter w(bytes);
    encode_values(params, v, TensorMeta{"kept", DType::f32, {v.size()}}, options, w);
    w.u8(0xBB);  // and one after it
    return bytes;
}

// Decodes the section between the marker bytes and checks that it ends where it should.
std::vector<float> decode(const std::vector<std::uint8_t>& bytes, std::size_t n) {
    ByteReader r(bytes, "test");
    CHECK(r.u8() == 0xAA);
    std::vector<float> out(n);
    decode_values(r, out);
    CHECK(r.u8() == 0xBB);
    r.expect_end();
    ByteReader sizes(bytes, "test");
    sizes.u8();
    CHECK(value_section_bits(sizes, n) == 8 * (bytes.size() - 2));
    return out;
}

std::vector<float> random_values(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 0.01f);
    std::vector<float> v(n);
    for (auto& x : v) x = normal(rng);
    return v;
}

}  // namespace

TEST_CASE("the value coder parses formats, and bits= alone selects rangeq", "[value_coder]") {
    CHECK(parse("topk").format == ValueFormat::f16);
    CHECK(parse("topk", ValueFormat::rangeq).format == ValueFormat::rangeq);
    CHECK(parse("topk:values=bf16").format == ValueFormat::bf16);
    const auto r = parse("topk:bits=6,mantissa=2,eps=0.5,round=truncate");
    CHECK(r.format == ValueFormat::rangeq);
    CHECK(r.bits == 6);
    CHECK(r.mantissa == 2);
    CHECK(r.eps == 0.5);
    CHECK(r.truncate);
    CHECK(parse("topk:values=rangeq").bits == 8);
    CHECK(parse("topk:values=rangeq").mantissa == std::nullopt);
}

TEST_CASE("rangeq keys with another value format are usage errors", "[value_coder]") {
    for (const char* spec :
         {"topk:values=f16,bits=8", "topk:values=f32,round=truncate", "topk:values=bf16,mantissa=3",
          "topk:bits=8,values=f64", "topk:bits=99"}) {
        INFO(spec);
        const auto e = thrown_error([&] { parse(spec); });
        CHECK(e.kind() == ErrorKind::usage);
    }
}

TEST_CASE("value sections round-trip in every format", "[value_coder]") {
    std::mt19937 rng(17);
    for (int trial = 0; trial < 40; ++trial) {
        const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 3000)(rng);
        const auto v = random_values(n, rng());
        INFO("n " << n);
        ValueCoderParams p;
        p.format = ValueFormat::f32;
        CHECK(decode(encode(p, v), n) == v);
        p.format = ValueFormat::f16;
        auto back = decode(encode(p, v), n);
        for (std::size_t i = 0; i < n; ++i)
            CHECK(back[i] == f16_to_float(*narrow_to(SmallFloat::f16, v[i])));
        p.format = ValueFormat::bf16;
        back = decode(encode(p, v), n);
        for (std::size_t i = 0; i < n; ++i)
            CHECK(back[i] == bf16_to_float(*narrow_to(SmallFloat::bf16, v[i])));
        p.format = ValueFormat::rangeq;
        p.bits = 2 + trial % 15;
        back = decode(encode(p, v), n);
        // The rangeq section inside is the codec's section: the same values and bound.
        const std::vector<std::uint8_t> section = written_bytes([&](ByteOutput& out) {
            write_range_section(RangeParams{p.bits, std::nullopt, std::nullopt, Rounding::nearest},
                                v, TensorMeta{"kept", DType::f32, {n}}, {}, out);
        });
        ByteReader r(section, "section");
        std::vector<float> direct(n);
        read_range_section(r, direct);
        CHECK(back == direct);
    }
}

TEST_CASE("value formats refuse non-finite values unless allowed", "[value_coder]") {
    std::vector<float> v{1.0f, -std::numeric_limits<float>::infinity(), 2.0f};
    EncodeOptions allow;
    allow.allow_nonfinite = true;
    for (const ValueFormat f :
         {ValueFormat::f32, ValueFormat::f16, ValueFormat::bf16, ValueFormat::rangeq}) {
        ValueCoderParams p;
        p.format = f;
        const auto e = thrown_error([&] { encode(p, v); });
        CHECK(e.kind() == ErrorKind::bad_input);
        CHECK_THAT(e.what(), Catch::Contains("kept: element 1"));
        CHECK(decode(encode(p, v, allow), 3)[1] == -std::numeric_limits<float>::infinity());
    }
}

TEST_CASE("f16 values out of range are bad input naming the value", "[value_coder]") {
    ValueCoderParams p;
    p.format = ValueFormat::f16;
    const auto e = thrown_error([&] { encode(p, {1.0f, 70000.0f}); });
    CHECK(e.kind() == ErrorKind::bad_input);
    CHECK_THAT(e.what(), Catch::Contains("kept: value 1"));
}

TEST_CASE("damaged value sections are refused", "[value_coder]") {
    const auto v = random_values(10, 1);
    for (const ValueFormat f :
         {ValueFormat::f32, ValueFormat::f16, ValueFormat::bf16, ValueFormat::rangeq}) {
        ValueCoderParams p;
        p.format = f;
        const auto bytes = encode(p, v);
        for (std::size_t len = 1; len + 1 < bytes.size(); ++len) {
            INFO("format " << static_cast<int>(f) << " cut at " << len);
            const std::vector<std::uint8_t> cut(bytes.begin(),
                                                bytes.begin() + static_cast<long>(len));
            ByteReader r(cut, "cut");
            r.u8();
            std::vector<float> out(10);
            CHECK_THROWS_AS(decode_values(r, out), Error);
            ByteReader s(cut, "cut");
            s.u8();
            CHECK_THROWS_AS(value_section_bits(s, 10), Error);
        }
    }
    for (const int tag : {0, 5, 255}) {
        const std::vector<std::uint8_t> bad{static_cast<std::uint8_t>(tag), 0, 0, 0, 0};
        ByteReader r(bad, "tag");
        std::vector<float> out(1);
        const auto e = thrown_error([&] { decode_values(r, out); });
        CHECK(e.kind() == ErrorKind::damaged_stream);
        CHECK_THAT(e.what(), Catch::Contains("unknown value format"));
    }
}
