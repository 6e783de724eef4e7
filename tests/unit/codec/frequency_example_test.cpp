// The worked examples of format-spec/codec-fft.md and codec-dct.md: re-encoding the stated
// input gives the committed payload byte for byte, and the payload decodes to the stated
// values.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <vector>

#include "gradcodec/codec.hpp"

using namespace gradcodec;

namespace {

std::vector<std::uint8_t> read_example(const char* name) {
    std::ifstream in(std::string(GRADCODEC_SAMPLES_DIR) + "/examples/" + name, std::ios::binary);
    REQUIRE(in.good());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::vector<float> kInput{1, 2, 3, 4, 4, 1, 0, 0, 0.5f, -0.5f};
const TensorMeta kMeta{"example", DType::f32, {10}};

void check_example(const char* spec, const char* file, const std::vector<float>& decoded) {
    const std::vector<std::uint8_t> payload = read_example(file);
    const EncodedTensor e =
        encode_tensor(parse_codec_spec(spec), kMeta, std::as_bytes(std::span<const float>(kInput)));
    CHECK(e.payload == payload);
    std::vector<float> y(kInput.size());
    decode_tensor(e.codec_id, kMeta, payload, std::as_writable_bytes(std::span<float>(y)));
    for (std::size_t i = 0; i < y.size(); ++i) {
        INFO("value " << i);
        CHECK(y[i] == Approx(decoded[i]).margin(1e-6));
    }
}

}  // namespace

TEST_CASE("the fft worked example re-encodes byte for byte and decodes as stated", "[fft]") {
    check_example("fft:density=0.5,chunk=4,values=f32", "fft-example.payload",
                  {2.5f, 2.5f, 2.5f, 2.5f, 4, 1, 0, 0, 0, 0});
}

TEST_CASE("the dct worked example re-encodes byte for byte and decodes as stated", "[dct]") {
    check_example(
        "dct:density=0.3,chunk=4,values=f32", "dct-example.payload",
        {2.5f, 2.5f, 2.5f, 2.5f, 3.13388324f, 2.03032994f, 0.469670057f, -0.633883238f, 0, 0});
}
