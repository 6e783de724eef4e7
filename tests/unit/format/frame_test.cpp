#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "gradcodec/gradcodec.hpp"
#include "test_data.hpp"

using namespace gradcodec;
using gradcodec::testing::as_bytes_of;
using gradcodec::testing::thrown_error;

TEST_CASE("a frame of a flat tensor costs 28 bytes beyond its payload", "[frame]") {
    const auto x = gradcodec::testing::laplace_values(4096, 1);
    const TensorMeta meta{"t", DType::f32, {x.size()}};
    const Codec codec = Codec::compile("rangeq:bits=8");
    const auto frame = encode_frame(codec, meta, as_bytes_of(x));
    CHECK(frame.size() == codec.encode(meta, as_bytes_of(x)).size() + 28);
    const FrameInfo info = read_frame_info(frame);
    CHECK(info.codec_id == codec.id());
    CHECK(info.dtype == DType::f32);
    CHECK(info.element_count == x.size());
    CHECK(info.shape == std::vector<std::uint64_t>{x.size()});
}

TEST_CASE("a frame keeps a shape of rank other than 1", "[frame]") {
    const auto x = gradcodec::testing::laplace_values(60, 2);
    const TensorMeta meta{"t", DType::f32, {3, 4, 5}};
    const auto frame = encode_frame(Codec::compile("lossless"), meta, as_bytes_of(x));
    CHECK(read_frame_info(frame).shape == meta.shape);
    std::vector<float> back(60);
    decode_frame_into(frame, std::as_writable_bytes(std::span(back)));
    CHECK(back == x);
}

TEST_CASE("frames round-trip through encode_frame_into and decode_frame_into", "[frame]") {
    const auto x = gradcodec::testing::laplace_values(3000, 4);
    const TensorMeta meta{"t", DType::f32, {x.size()}};
    for (const char* spec : {"lossless", "cast:to=bf16", "topk:density=0.05", "fft:density=0.2"}) {
        INFO(spec);
        const Codec codec = Codec::compile(spec);
        std::vector<std::uint8_t> frame(max_frame_size(codec, meta));
        frame.resize(encode_frame_into(codec, meta, as_bytes_of(x), frame));
        CHECK(frame == encode_frame(codec, meta, as_bytes_of(x)));
        std::vector<float> back(x.size()), reference(x.size());
        decode_frame_into(frame, std::as_writable_bytes(std::span(back)));
        decode_tensor(codec.id(), meta, codec.encode(meta, as_bytes_of(x)),
                      std::as_writable_bytes(std::span(reference)));
        CHECK(back == reference);
    }
}

TEST_CASE("every flipped bit and every truncation of a frame is refused", "[frame][damage]") {
    const auto x = gradcodec::testing::laplace_values(200, 6);
    const TensorMeta meta{"t", DType::f32, {x.size()}};
    const auto frame = encode_frame(Codec::compile("topk:density=0.1"), meta, as_bytes_of(x));
    std::vector<float> back(x.size());
    for (std::size_t bit = 0; bit < 8 * frame.size(); ++bit) {
        auto damaged = frame;
        damaged[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
        INFO("bit " << bit);
        REQUIRE_THROWS_AS(decode_frame_into(damaged, std::as_writable_bytes(std::span(back))),
                          Error);
    }
    for (std::size_t size = 0; size < frame.size(); ++size) {
        INFO("size " << size);
        REQUIRE_THROWS_AS(read_frame_info(std::span(frame).first(size)), Error);
    }
}

TEST_CASE("a frame of a newer major version is refused before its checksum", "[frame]") {
    const std::vector<float> x{1, 2, 3};
    auto frame = encode_frame(Codec::compile("lossless"), {"t", DType::f32, {3}}, as_bytes_of(x));
    frame[4] = 2;
    const auto e = thrown_error([&] { read_frame_info(frame); });
    CHECK(std::string(e.what()).find("2.0 is not supported") != std::string::npos);
}

TEST_CASE("decoding a frame into a buffer of the wrong size is a usage error", "[frame]") {
    const std::vector<float> x{1, 2, 3};
    const auto frame =
        encode_frame(Codec::compile("lossless"), {"t", DType::f32, {3}}, as_bytes_of(x));
    std::vector<float> back(4);
    const auto e =
        thrown_error([&] { decode_frame_into(frame, std::as_writable_bytes(std::span(back))); });
    CHECK(e.kind() == ErrorKind::usage);
}
