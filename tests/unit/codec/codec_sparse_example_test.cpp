// The worked example of format-spec/codec-sparse.md §5, byte for byte.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iterator>
#include <vector>

#include "gradcodec/codec.hpp"

using namespace gradcodec;

namespace {

std::vector<std::uint8_t> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in.good());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("the sparse worked example re-encodes byte for byte and decodes to its values",
          "[codec][sparse][example]") {
    std::vector<float> x(64, 0.0f);
    x[5] = 0.5f;
    x[7] = 0.25f;
    x[12] = -0.125f;
    x[30] = 3.0f;
    x[50] = -1.5f;
    x[63] = 0.375f;
    const TensorMeta meta{"example", DType::f32, {8, 8}};
    const auto expected = read_file(GRADCODEC_SAMPLES_DIR "/examples/sparse-topk-example.payload");
    const EncodedTensor e = encode_tensor(parse_codec_spec("topk:count=3"), meta,
                                          std::as_bytes(std::span<const float>(x)));
    CHECK(e.codec_id == 4);
    CHECK(e.payload == expected);

    std::vector<float> y(64, 9.0f);
    decode_tensor(4, meta, expected, std::as_writable_bytes(std::span<float>(y)));
    for (std::size_t i = 0; i < 64; ++i) {
        INFO(i);
        const float want = i == 5 ? 0.5f : i == 30 ? 3.0f : i == 50 ? -1.5f : 0.0f;
        CHECK(y[i] == want);
        CHECK((!std::signbit(y[i]) || i == 50));
    }
    const PayloadStats s = describe_payload(4, meta, expected);
    CHECK(s.position_bits == 8 * 21);
    CHECK(s.value_bits == 8 * 7);
    CHECK(s.target_density == 0.046875);
}
