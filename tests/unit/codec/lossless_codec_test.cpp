#include <catch2/catch.hpp>
#include <cstring>
#include <random>

#include "expect_error.hpp"
#include "gradcodec/gradcodec.hpp"
#include "test_data.hpp"

using namespace gradcodec;
using gradcodec::testing::thrown_error;

namespace {

std::vector<std::uint64_t> random_shape(std::mt19937_64& rng) {
    std::uniform_int_distribution<int> rank(0, 4);
    std::uniform_int_distribution<std::uint64_t> dim(0, 40);
    std::vector<std::uint64_t> shape(static_cast<std::size_t>(rank(rng)));
    for (auto& d : shape) d = dim(rng);
    return shape;
}

std::vector<std::byte> random_bytes(std::mt19937_64& rng, std::size_t n, bool compressible) {
    std::vector<std::byte> b(n);
    for (std::size_t i = 0; i < n; ++i) {
        b[i] = static_cast<std::byte>(compressible ? (i % 7 == 0 ? rng() : 0x3c) : rng());
    }
    return b;
}

}  // namespace

TEST_CASE("lossless round trips are bit-exact for random shapes, dtypes and seeds",
          "[lossless][property]") {
    const DType types[] = {DType::f16, DType::bf16, DType::f32, DType::f64,
                           DType::i8,  DType::i32,  DType::u64, DType::bool8};
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
        std::mt19937_64 rng(seed);
        const TensorMeta meta{"t" + std::to_string(seed), types[seed % 8], random_shape(rng)};
        const auto data = random_bytes(rng, meta.byte_count(), seed % 2 == 0);
        const std::string spec = seed % 3 == 0
                                     ? "lossless"
                                     : "lossless:level=" + std::to_string(int(seed % 30) * 4 - 100);
        const auto encoded = encode_tensor(parse_codec_spec(spec), meta, data);
        std::vector<std::byte> back(data.size());
        decode_tensor(encoded.codec_id, meta, encoded.payload, back);
        INFO("seed " << seed << " shape " << shape_to_string(meta.shape));
        REQUIRE(back == data);
    }
}

TEST_CASE("lossless never grows a record by more than its mode byte", "[lossless]") {
    std::mt19937_64 rng(7);
    const TensorMeta meta{"noise", DType::f32, {4096}};
    const auto data = random_bytes(rng, meta.byte_count(), false);
    const auto encoded = encode_tensor(parse_codec_spec("lossless"), meta, data);
    CHECK(encoded.payload.size() <= data.size() + 1);
}

TEST_CASE("lossless shrinks gradient-like floats below their raw size", "[lossless]") {
    const auto values = gradcodec::testing::laplace_values(1 << 16, 3);
    const TensorMeta meta{"grad", DType::f32, {values.size()}};
    const auto encoded =
        encode_tensor(parse_codec_spec("lossless"), meta, gradcodec::testing::as_bytes_of(values));
    CHECK(encoded.payload.size() < values.size() * 4 * 95 / 100);
}

TEST_CASE("a damaged lossless payload is refused, never decoded into garbage", "[lossless]") {
    const auto values = gradcodec::testing::laplace_values(1000, 5);
    const TensorMeta meta{"grad", DType::f32, {values.size()}};
    const auto encoded =
        encode_tensor(parse_codec_spec("lossless"), meta, gradcodec::testing::as_bytes_of(values));
    std::vector<std::byte> out(meta.byte_count());
    auto refused = [&](const std::vector<std::uint8_t>& p) {
        try {
            decode_tensor(encoded.codec_id, meta, p, out);
        } catch (const Error& e) {
            return e.kind() == ErrorKind::damaged_stream;
        }
        return false;
    };
    auto p = encoded.payload;
    CHECK(refused(std::vector<std::uint8_t>(
        p.begin(), p.begin() + static_cast<std::ptrdiff_t>(p.size() / 2))));
    p[0] = 9;
    CHECK(refused(p));
    p = encoded.payload;
    p.push_back(0);
    CHECK(refused(p));
    CHECK(refused({}));
    const TensorMeta bigger{"grad", DType::f32, {values.size() + 1}};
    std::vector<std::byte> big_out(bigger.byte_count());
    const auto e =
        thrown_error([&] { decode_tensor(encoded.codec_id, bigger, encoded.payload, big_out); });
    CHECK(e.kind() == ErrorKind::damaged_stream);
}
