// Codec decoders treat payloads as hostile. Properties over every codec spec this build
// accepts (so codecs added later are covered), plus the regressions the fuzzers found.
#include <catch2/catch.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"
#include "sample_stream.hpp"

using namespace gradcodec;
using gradcodec::testing::thrown_error;

namespace {

// "" when decoding was refused with Error(damaged_stream), else what happened instead.
std::string refusal_problem(std::uint16_t codec_id, const TensorMeta& meta,
                            std::span<const std::uint8_t> payload) {
    try {
        std::vector<std::byte> out(meta.byte_count());
        decode_tensor(codec_id, meta, payload, out);
        return "accepted";
    } catch (const Error& e) {
        return e.kind() == ErrorKind::damaged_stream ? "" : std::string("wrong kind: ") + e.what();
    } catch (const std::exception& e) {
        return std::string("not a gradcodec::Error: ") + e.what();
    }
}

}  // namespace

TEST_CASE("every truncation of every codec's payload is refused as damage", "[hostile]") {
    std::vector<std::string> problems;
    for (const std::string& spec : gctest::usable_codec_specs()) {
        for (const auto& tensor : gctest::sample_tensors()) {
            TensorRecord record;
            try {
                record = gctest::encode_record(tensor, spec);
            } catch (const Error&) {
                continue;  // e.g. a float-only codec on the i64 step counter
            }
            const TensorMeta meta{tensor.path, tensor.dtype, tensor.shape};
            for (std::size_t length = 0; length < record.payload.size(); ++length) {
                const std::span<const std::uint8_t> head(record.payload.data(), length);
                const std::string problem = refusal_problem(record.codec_id, meta, head);
                if (!problem.empty()) {
                    problems.push_back(spec + " on " + tensor.path + ", " + std::to_string(length) +
                                       " of " + std::to_string(record.payload.size()) +
                                       " bytes: " + problem);
                }
            }
        }
    }
    for (std::size_t i = 0; i < problems.size() && i < 20; ++i) UNSCOPED_INFO(problems[i]);
    CHECK(problems.empty());
}

TEST_CASE("a trailing byte after every codec's payload is refused as damage", "[hostile]") {
    std::vector<std::string> problems;
    for (const std::string& spec : gctest::usable_codec_specs()) {
        for (const auto& tensor : gctest::sample_tensors()) {
            TensorRecord record;
            try {
                record = gctest::encode_record(tensor, spec);
            } catch (const Error&) {
                continue;
            }
            record.payload.push_back(0);
            const std::string problem = refusal_problem(
                record.codec_id, {tensor.path, tensor.dtype, tensor.shape}, record.payload);
            if (!problem.empty()) problems.push_back(spec + " on " + tensor.path + ": " + problem);
        }
    }
    for (std::size_t i = 0; i < problems.size() && i < 20; ++i) UNSCOPED_INFO(problems[i]);
    CHECK(problems.empty());
}

TEST_CASE("every single-bit flip of every codec's payload decodes or is refused as damage",
          "[hostile]") {
    // Without the container's checksum a flip may well decode (a raw value changes); what
    // must never happen is a crash, an out-of-bounds access or another kind of error.
    std::vector<std::string> problems;
    for (const std::string& spec : gctest::usable_codec_specs()) {
        for (const auto& tensor : gctest::sample_tensors()) {
            TensorRecord record;
            try {
                record = gctest::encode_record(tensor, spec);
            } catch (const Error&) {
                continue;
            }
            const TensorMeta meta{tensor.path, tensor.dtype, tensor.shape};
            for (std::size_t bit = 0; bit < 8 * record.payload.size(); ++bit) {
                auto flipped = record.payload;
                flipped[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
                const std::string problem = refusal_problem(record.codec_id, meta, flipped);
                if (!problem.empty() && problem != "accepted") {
                    problems.push_back(spec + " on " + tensor.path + " bit " + std::to_string(bit) +
                                       ": " + problem);
                }
            }
        }
    }
    for (std::size_t i = 0; i < problems.size() && i < 20; ++i) UNSCOPED_INFO(problems[i]);
    CHECK(problems.empty());
}

TEST_CASE("a lossless payload of a zero-element tensor decodes", "[hostile]") {
    // fuzz_payload found memcpy(nullptr, ...) here under UBSan.
    const TensorMeta meta{"empty", DType::f32, {0, 3}};
    const EncodedTensor encoded = encode_tensor(parse_codec_spec("lossless"), meta, {});
    std::vector<std::byte> out;
    decode_tensor(encoded.codec_id, meta, encoded.payload, out);
    const std::vector<std::uint8_t> raw{0};
    decode_tensor(encoded.codec_id, meta, raw, out);
    CHECK(out.empty());
}

TEST_CASE("a cast payload outside the tensor's half range is damage, not bad input", "[hostile]") {
    // bf16 0x7F00 = 1.7e38, far beyond f16; the encoder never writes it for an f16 tensor.
    const std::vector<std::uint8_t> payload{static_cast<std::uint8_t>(DType::bf16), 0x00, 0x7F};
    const TensorMeta meta{"/g/w", DType::f16, {1}};
    std::vector<std::byte> out(2);
    const std::uint16_t cast_id = [] {
        for (const auto& c : list_codecs())
            if (c.name == "cast") return c.id;
        return std::uint16_t{0};
    }();
    const auto e = thrown_error([&] { decode_tensor(cast_id, meta, payload, out); });
    CHECK(e.kind() == ErrorKind::damaged_stream);
    CHECK_THAT(e.what(), Catch::Contains("/g/w"));
}

TEST_CASE("a lossless zstd frame that declares another size than the tensor is damage",
          "[hostile]") {
    const auto tensor = gctest::sample_tensors()[6];  // the mostly zero embedding gradient
    const auto record = gctest::encode_record(tensor, "lossless");
    REQUIRE(record.payload[0] == 1);  // shuffled zstd, not raw
    TensorMeta bigger{tensor.path, tensor.dtype, {17, 8}};
    std::vector<std::byte> out(bigger.byte_count());
    const auto e =
        thrown_error([&] { decode_tensor(record.codec_id, bigger, record.payload, out); });
    CHECK(e.kind() == ErrorKind::damaged_stream);
    CHECK_THAT(e.what(), Catch::Contains("zstd frame declares"));
}

TEST_CASE("a lossless byte-plane payload on a zero-element tensor does no pointer arithmetic",
          "[hostile]") {
    // fuzz_payload found `nullptr + 3` in merge_plane under UBSan: shape 16x0, four planes.
    const std::vector<std::uint8_t> payload{
        0x01, 0x04, 0x01, 0x01, 0x01, 0x00, 0x13, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0x00, 0x01, 0x01, 0x01, 0x32, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x28, 0xb5, 0x2f, 0x20, 0xfd, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x04, 0x00, 0x02, 0x00, 0x00, 0x00, 0x84, 0x00, 0x3a};
    const TensorMeta meta{"empty", DType::f32, {16, 0}};
    std::vector<std::byte> out;
    try {
        decode_tensor(1, meta, payload, out);
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::damaged_stream);
    }
}
