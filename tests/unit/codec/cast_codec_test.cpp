#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "common/small_float.hpp"
#include "expect_error.hpp"
#include "gradcodec/gradcodec.hpp"
#include "test_data.hpp"

using namespace gradcodec;
using gradcodec::testing::as_bytes_of;
using gradcodec::testing::thrown_error;

namespace {

template <typename T>
std::vector<T> cast_round_trip(const std::string& spec, DType dtype, const std::vector<T>& values) {
    const TensorMeta meta{"t", dtype, {values.size()}};
    const auto encoded = encode_tensor(parse_codec_spec(spec), meta, as_bytes_of(values));
    CHECK(encoded.payload.size() == 1 + 2 * values.size());
    std::vector<T> back(values.size());
    decode_tensor(encoded.codec_id, meta, encoded.payload, std::as_writable_bytes(std::span(back)));
    return back;
}

}  // namespace

TEST_CASE("cast to f16 equals nearest-even rounding of each value", "[cast][property]") {
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
        const auto values = gradcodec::testing::laplace_values(500, seed, seed % 2 ? 10.0f : 1e-4f);
        const auto back = cast_round_trip("cast:to=f16", DType::f32, values);
        for (std::size_t i = 0; i < values.size(); ++i) {
            REQUIRE(back[i] == f16_to_float(*narrow_to(SmallFloat::f16, values[i])));
        }
    }
}

TEST_CASE("cast to bf16 keeps 8 significant bits", "[cast]") {
    const auto values = gradcodec::testing::laplace_values(1000, 11);
    const auto back = cast_round_trip("cast:to=bf16", DType::f32, values);
    for (std::size_t i = 0; i < values.size(); ++i) {
        REQUIRE(std::fabs(back[i] - values[i]) <= std::ldexp(std::fabs(values[i]), -8));
    }
}

TEST_CASE("cast of f64 rounds once from double precision", "[cast]") {
    // 1 + 2^-11 + 2^-40 rounds up in f16; rounding to f32 first would make it a tie and go down.
    const std::vector<double> values{1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)};
    const auto back = cast_round_trip("cast:to=f16", DType::f64, values);
    CHECK(back[0] == 1.0 + std::ldexp(1.0, -10));
}

TEST_CASE("cast refuses a finite value outside f16, naming the tensor and index", "[cast]") {
    const std::vector<float> values{1.0f, 70000.0f};
    const TensorMeta meta{"step/fc.weight", DType::f32, {2}};
    const auto e = thrown_error(
        [&] { encode_tensor(parse_codec_spec("cast:to=f16"), meta, as_bytes_of(values)); });
    CHECK(e.kind() == ErrorKind::bad_input);
    CHECK_THAT(e.what(), Catch::Contains("step/fc.weight: element 1"));
}

TEST_CASE("cast applies to float tensors only", "[cast]") {
    const std::vector<std::int32_t> values{1, 2};
    const TensorMeta meta{"counts", DType::i32, {2}};
    CHECK_THROWS_AS(encode_tensor(parse_codec_spec("cast"), meta, as_bytes_of(values)), Error);
}
