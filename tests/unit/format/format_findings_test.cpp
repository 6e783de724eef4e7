// What a decoder written from format-spec/ alone found, each pinned down: streams the encoder
// once wrote and no decoder read, and rules that only the reference implementation knew.
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "codec/codec_def.hpp"
#include "common/byte_io.hpp"
#include "common/small_float.hpp"
#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"
#include "index/position_coder.hpp"

using namespace gradcodec;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> mostly_nan(std::size_t n) {
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i)
        x[i] = i % 7 == 0 ? 0.001f * static_cast<float>(i % 13)
                          : std::bit_cast<float>(0x7fc00000u | static_cast<std::uint32_t>(i));
    return x;
}

std::vector<std::uint32_t> decoded_bits(const EncodedTensor& e, const TensorMeta& meta) {
    std::vector<std::uint32_t> out(meta.element_count());
    decode_tensor(e.codec_id, meta, e.payload, std::as_writable_bytes(std::span(out)));
    return out;
}

// The sparse payload's fields (format-spec/codec-sparse.md, section 1).
float threshold_field(const EncodedTensor& e) {
    float t;
    std::memcpy(&t, e.payload.data() + 12, 4);
    return t;
}
std::uint8_t value_format(const EncodedTensor& e) {
    std::uint64_t lp;
    std::memcpy(&lp, e.payload.data() + 24, 8);
    REQUIRE((e.payload[3] & 2) == 0);  // the value section is stored, not a zstd frame
    return e.payload[40 + lp];
}

}  // namespace

TEST_CASE("a mostly-NaN tensor with values=rangeq is written as exact f32 values that decode",
          "[findings][sparse]") {
    const auto x = mostly_nan(3000);
    const TensorMeta meta{"nan.heavy", DType::f32, {x.size()}};
    for (const char* spec : {"topk:density=0.5,values=rangeq,bits=16,zstd=off",
                             "threshold:value=0.5,values=rangeq,zstd=off"}) {
        INFO(spec);
        const auto e = encode_tensor(parse_codec_spec(spec), meta, std::as_bytes(std::span(x)),
                                     EncodeOptions{true});
        // 12 bytes per exception would pass the value-section limit of 4·count + 4096 bytes.
        CHECK(value_format(e) == 1);
        // Every kept value comes back bit for bit: NaNs rank first, so top-k keeps 1500 NaNs
        // and the threshold 0.5 keeps all of them.
        const auto back = decoded_bits(e, meta);
        std::size_t nan_kept = 0, nan_total = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (!std::isnan(x[i])) continue;
            ++nan_total;
            CHECK((back[i] == 0 || back[i] == std::bit_cast<std::uint32_t>(x[i])));
            nan_kept += back[i] != 0;
        }
        CHECK(nan_kept == std::min<std::size_t>(
                              nan_total, spec[0] == 't' && spec[1] == 'o' ? 1500 : nan_total));
    }
}

TEST_CASE("a rangeq value section within the limit stays rangeq, exceptions and all",
          "[findings][sparse]") {
    auto x = mostly_nan(3000);
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = i % 50 == 1 ? kNaN : 0.01f + 1e-5f * static_cast<float>(i);
    const TensorMeta meta{"few.nan", DType::f32, {x.size()}};
    const auto e =
        encode_tensor(parse_codec_spec("topk:density=0.5,values=rangeq,bits=16,zstd=off"), meta,
                      std::as_bytes(std::span(x)), EncodeOptions{true});
    CHECK(value_format(e) == 4);
    CHECK(std::isnan(std::bit_cast<float>(decoded_bits(e, meta)[1])));
}

TEST_CASE("top-k whose k-th magnitude is NaN records the threshold +inf, never NaN",
          "[findings][sparse]") {
    const std::vector<float> x{0.5f, kNaN, -2.0f, 0.25f};
    const TensorMeta meta{"one.nan", DType::f32, {x.size()}};
    for (const char* spec : {"topk:count=1,values=f32", "dgc:density=0.25,values=f32"}) {
        INFO(spec);
        const auto e = encode_tensor(parse_codec_spec(spec), meta, std::as_bytes(std::span(x)),
                                     EncodeOptions{true});
        CHECK(threshold_field(e) == kInf);
        CHECK(std::isnan(std::bit_cast<float>(decoded_bits(e, meta)[1])));
    }
    // Without NaN the threshold is still the k-th largest magnitude.
    const std::vector<float> finite{0.5f, kInf, -2.0f, 0.25f};
    const auto e = encode_tensor(parse_codec_spec("topk:count=2,values=f32"), meta,
                                 std::as_bytes(std::span(finite)), EncodeOptions{true});
    CHECK(threshold_field(e) == 2.0f);
}

TEST_CASE("sparse values of an f16 tensor never decode past the f16 range", "[findings][sparse]") {
    const std::vector<std::uint16_t> x{0x7bff, 0x3c00, 0xfbff, 0x0001};  // 65504, 1, -65504, tiny
    const TensorMeta meta{"f16.max", DType::f16, {x.size()}};
    const auto data = std::as_bytes(std::span(x));
    // bf16 rounds 65504 up to 65536: refused at encode, naming the tensor, not at decode.
    CHECK_THROWS_WITH(encode_tensor(parse_codec_spec("topk:density=1,values=bf16"), meta, data),
                      Catch::Contains("f16.max") && Catch::Contains("65536"));
    // rangeq clamps to its ladder value below 65504 instead of rounding up to 65536.
    for (const char* spec : {"topk:density=1,values=rangeq,bits=4",
                             "topk:density=1,values=rangeq,bits=8,mantissa=2"}) {
        INFO(spec);
        const auto e = encode_tensor(parse_codec_spec(spec), meta, data);
        std::vector<std::uint16_t> back(x.size());
        decode_tensor(e.codec_id, meta, e.payload, std::as_writable_bytes(std::span(back)));
        CHECK(f16_to_float(back[0]) <= 65504.0f);
        CHECK(f16_to_float(back[0]) >= 32768.0f);
    }
}

TEST_CASE("an fft or dct reconstruction that would overflow f16 is refused at encode",
          "[findings][frequency]") {
    // Two-level quantization turns every kept coefficient into plus or minus the largest, so
    // the rebuilt chunk overshoots 65504.
    std::vector<std::uint16_t> x(64);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = i % 2 ? 0x7bff : 0x3c00;
    const TensorMeta meta{"f16.overshoot", DType::f16, {x.size()}};
    for (const char* spec : {"fft:density=1,chunk=64,bits=2", "dct:density=1,chunk=64,bits=2"}) {
        INFO(spec);
        CHECK_THROWS_WITH(encode_tensor(parse_codec_spec(spec), meta, std::as_bytes(std::span(x))),
                          Catch::Contains("f16.overshoot") && Catch::Contains("overflows f16"));
    }
    // The same tensor in f32 decodes: binary32 holds the overshoot.
    std::vector<float> wide(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) wide[i] = f16_to_float(x[i]);
    const TensorMeta meta32{"f32.overshoot", DType::f32, {x.size()}};
    const auto e = encode_tensor(parse_codec_spec("fft:density=1,chunk=64,bits=2"), meta32,
                                 std::as_bytes(std::span(wide)));
    std::vector<float> back(x.size());
    decode_tensor(e.codec_id, meta32, e.payload, std::as_writable_bytes(std::span(back)));
    CHECK(*std::max_element(back.begin(), back.end()) > 65504.0f);
}

TEST_CASE("the fft decoder scales kept bins by the binary32 reciprocal of the chunk length",
          "[findings][frequency]") {
    // n = 3, one chunk of 3: bins 0 and 1. Only bin 0 (DC) kept, value 5.
    std::vector<std::uint8_t> payload;
    ByteWriter w(payload);
    w.u8(0);
    w.u32(3);
    w.f64(0.5);
    encode_positions(std::vector<std::uint64_t>{0}, 2, w);
    w.u8(1);  // f32 values
    w.f32(5.0f);
    const TensorMeta meta{"dc", DType::f32, {3}};
    std::vector<float> y(3);
    decode_tensor(kCodecFft, meta, payload, std::as_writable_bytes(std::span(y)));
    const float reciprocal = 1.0f / 3.0f;
    CHECK(y[0] == 5.0f * reciprocal);  // 1.66666675, where 5/3 in binary32 is 1.66666663
    CHECK(y[0] != 5.0f / 3.0f);
    CHECK(y[1] == y[0]);
    CHECK(y[2] == y[0]);
}

TEST_CASE(
    "Elias-Fano is never smaller than Golomb-Rice with the same parameter, so it is never "
    "chosen",
    "[findings][index]") {
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 300; ++trial) {
        const std::uint64_t n = 1 + rng() % 100000;
        const std::uint64_t k = 1 + rng() % std::min<std::uint64_t>(n, 3000);
        // Uniform, clustered at the start with one far outlier, and evenly spaced sets.
        std::vector<std::uint64_t> p;
        const int shape = trial % 3;
        if (shape == 0) {
            std::vector<std::uint64_t> all(n);
            for (std::uint64_t i = 0; i < n; ++i) all[i] = i;
            std::shuffle(all.begin(), all.end(), rng);
            p.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k));
            std::sort(p.begin(), p.end());
        } else if (shape == 1) {
            for (std::uint64_t i = 0; i + 1 < k; ++i) p.push_back(i);
            if (n - 1 >= k - 1) p.push_back(n - 1);
        } else {
            for (std::uint64_t i = 0; i < k; ++i) p.push_back(i * (n / k));
        }
        const PositionCosts c = position_costs(p, n);
        INFO("n = " << n << ", k = " << p.size() << ", shape " << shape);
        CHECK(c.rice_gaps <= c.elias_fano);
        CHECK(c.best != PositionCoder::elias_fano);
    }
}

TEST_CASE("cast writes NaN as the canonical quiet NaN of its sign, even to the same type",
          "[findings][cast]") {
    const std::vector<std::uint16_t> x{0x7f81, 0xffa5, 0x3f80,
                                       0x7f80};  // signalling NaN, -NaN, 1, inf
    const TensorMeta meta{"bf16.nan", DType::bf16, {x.size()}};
    const auto e =
        encode_tensor(parse_codec_spec("cast:to=bf16"), meta, std::as_bytes(std::span(x)));
    std::vector<std::uint16_t> back(x.size());
    decode_tensor(e.codec_id, meta, e.payload, std::as_writable_bytes(std::span(back)));
    CHECK(back == std::vector<std::uint16_t>{0x7fc0, 0xffc0, 0x3f80, 0x7f80});
}

TEST_CASE("Rice parameter ties go to the smaller parameter", "[findings][index]") {
    // One gap of 1: r = 0 and r = 1 both spend 2 bits. One gap of 2: r = 0, 1, 2 all spend 3.
    CHECK(position_costs(std::vector<std::uint64_t>{1}, 10).rice_parameter == 0);
    CHECK(position_costs(std::vector<std::uint64_t>{2}, 10).rice_parameter == 0);
    // Gaps of 3: r = 1 and r = 2 both spend 3 bits per gap, r = 0 spends 4.
    CHECK(position_costs(std::vector<std::uint64_t>{3, 7, 11}, 20).rice_parameter == 1);
}

TEST_CASE("top-k with count=K records the target min(K, n)/n", "[findings][sparse]") {
    const std::vector<float> x{0.5f, -2.0f, 0.25f, 1.0f};
    const TensorMeta meta{"count", DType::f32, {x.size()}};
    const auto target = [&](const char* spec) {
        const auto e = encode_tensor(parse_codec_spec(spec), meta, std::as_bytes(std::span(x)));
        double t;
        std::memcpy(&t, e.payload.data() + 4, 8);
        return t;
    };
    CHECK(target("topk:count=3") == 0.75);
    CHECK(target("topk:count=10") == 1.0);
    const TensorMeta empty{"empty", DType::f32, {0}};
    const auto e = encode_tensor(parse_codec_spec("topk:count=3"), empty, {});
    double t;
    std::memcpy(&t, e.payload.data() + 4, 8);
    CHECK(t == 1.0);
}
