// The thread count is a speed knob only: every codec writes the same payload and decodes to the
// same bytes on 1, 2 or 4 threads, and an error names the same element. The tensor is large
// enough that every codec's split applies (pieces of 2^16 to 2^20 values) with a ragged tail.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gradcodec/gradcodec.hpp"
#include "test_data.hpp"

using namespace gradcodec;
using gradcodec::testing::as_bytes_of;
using gradcodec::testing::laplace_values;

namespace {

constexpr std::size_t kElements = (std::size_t{1} << 21) + 4099;

// Laplace values with a quarter exact zeros (as ReLU layers give) and a few large outliers.
std::vector<float> gradient() {
    auto v = laplace_values(kElements, 16);
    for (std::size_t i = 0; i < v.size(); i += 4) v[i] = 0.0f;
    for (std::size_t i = 1000; i < v.size(); i += 300007) v[i] = 0.5f;
    return v;
}

std::vector<std::uint8_t> encode_with(const std::string& spec, const TensorMeta& meta,
                                      std::span<const std::byte> data, unsigned threads,
                                      bool allow_nonfinite = false) {
    return encode_tensor(parse_codec_spec(spec), meta, data,
                         EncodeOptions{allow_nonfinite, threads})
        .payload;
}

std::vector<std::byte> decode_with(std::uint16_t id, const TensorMeta& meta,
                                   std::span<const std::uint8_t> payload, unsigned threads) {
    std::vector<std::byte> out(meta.byte_count());
    decode_tensor(id, meta, payload, out, DecodeOptions{threads});
    return out;
}

}  // namespace

TEST_CASE("every codec writes the same payload and decodes the same values on any thread count",
          "[threads]") {
    const auto values = gradient();
    const TensorMeta meta{"grad", DType::f32, {kElements}};
    const auto data = as_bytes_of(values);
    const char* specs[] = {"lossless",
                           "lossless:level=3",
                           "cast:to=f16",
                           "cast:to=bf16",
                           "rangeq:bits=8",
                           "rangeq:bits=5,round=truncate",
                           "rangeq:bits=16",
                           "topk:density=0.001",
                           "topk:density=0.1,bits=10",
                           "threshold:value=0.002",
                           "dgc:density=0.01",
                           "sidco:dist=exp,density=0.01",
                           "fft:density=0.1",
                           "fft:density=0.05,chunk=64,select=sidco",
                           "dct:density=0.1"};
    for (const char* spec : specs) {
        INFO(spec);
        const EncodedTensor one = encode_tensor(parse_codec_spec(spec), meta, data, {});
        for (const unsigned threads : {2u, 4u}) {
            INFO(threads << " threads");
            CHECK(encode_with(spec, meta, data, threads) == one.payload);
        }
        const auto decoded = decode_with(one.codec_id, meta, one.payload, 1);
        CHECK(decode_with(one.codec_id, meta, one.payload, 4) == decoded);
    }
}

TEST_CASE("lossless splits f64 and f16 tensors the same way on any thread count", "[threads]") {
    const auto values = gradient();
    const std::vector<double> wide(values.begin(), values.end());
    const TensorMeta meta64{"wide", DType::f64, {wide.size()}};
    CHECK(encode_with("lossless", meta64, as_bytes_of(wide), 4) ==
          encode_with("lossless", meta64, as_bytes_of(wide), 1));
    const auto halves = encode_tensor(parse_codec_spec("cast:to=f16"),
                                      {"g", DType::f32, {kElements}}, as_bytes_of(values), {})
                            .payload;
    const std::span<const std::byte> f16(reinterpret_cast<const std::byte*>(halves.data()) + 1,
                                         halves.size() - 1);
    const TensorMeta meta16{"half", DType::f16, {kElements}};
    CHECK(encode_with("rangeq:bits=8", meta16, f16, 4) ==
          encode_with("rangeq:bits=8", meta16, f16, 1));
    CHECK(encode_with("lossless", meta16, f16, 4) == encode_with("lossless", meta16, f16, 1));
}

TEST_CASE("carried non-finite values give the same payload on any thread count", "[threads]") {
    auto values = gradient();
    values[7] = std::numeric_limits<float>::quiet_NaN();
    values[kElements - 3] = -std::numeric_limits<float>::infinity();
    const TensorMeta meta{"grad", DType::f32, {kElements}};
    for (const char* spec : {"rangeq:bits=8", "topk:density=0.01", "cast:to=bf16"}) {
        INFO(spec);
        CHECK(encode_with(spec, meta, as_bytes_of(values), 4, true) ==
              encode_with(spec, meta, as_bytes_of(values), 1, true));
    }
}

TEST_CASE("an error on several threads names the first offending element, as on one", "[threads]") {
    auto values = gradient();
    values[1'500'000] = 1e6f;  // beyond f16's range, in a later piece
    values[300'001] = -7e5f;   // and in an earlier one
    const TensorMeta meta{"grad", DType::f32, {kElements}};
    for (const unsigned threads : {1u, 4u}) {
        INFO(threads << " threads");
        CHECK_THROWS_WITH(encode_with("cast:to=f16", meta, as_bytes_of(values), threads),
                          Catch::Contains("element 300001"));
    }
    values[300'001] = std::numeric_limits<float>::quiet_NaN();
    for (const unsigned threads : {1u, 4u}) {
        CHECK_THROWS_WITH(encode_with("topk:density=0.01", meta, as_bytes_of(values), threads),
                          Catch::Contains("element 300001"));
    }
}
