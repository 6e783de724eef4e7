// The public entry points against callers' buffers and hostile sizes: an output that overlaps
// the values (or the residual or decoded buffer) is refused instead of sealing a frame that does
// not decode to the values; size bounds never wrap to a small number; a dimension above 2^63 - 1
// is refused in a frame, a stream and a TensorMeta, while a dimension of 0 still works.
#include <xxhash.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "expect_error.hpp"
#include "format/frame_layout.hpp"
#include "gradcodec/gradcodec.hpp"
#include "stream_bytes.hpp"
#include "test_data.hpp"

using namespace gradcodec;
using gradcodec::testing::as_bytes_of;
using gradcodec::testing::thrown_error;

namespace {

constexpr std::uint64_t kTwo63 = std::uint64_t{1} << 63;

ErrorKind kind_of(const std::function<void()>& call) {
    return thrown_error(call).kind();
}

void put_u64(std::uint8_t* at, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) at[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

}  // namespace

TEST_CASE("an output buffer that overlaps the values or a feedback buffer is refused",
          "[frame][aliasing]") {
    constexpr std::size_t n = 512;
    const auto x = gradcodec::testing::laplace_values(n, 3);
    const TensorMeta meta{"t", DType::f32, {n}};
    for (const char* spec : {"lossless", "topk:density=0.1", "rangeq:bits=8", "cast:to=f16"}) {
        INFO(spec);
        const Codec codec = Codec::compile(spec);
        const std::size_t bound = max_frame_size(codec, meta);
        // The values at the start of one arena, with room after them for a frame.
        std::vector<std::uint8_t> arena(4 * n + bound + 64);
        std::memcpy(arena.data(), x.data(), 4 * n);
        const std::span<const std::byte> values(reinterpret_cast<const std::byte*>(arena.data()),
                                                4 * n);
        const std::span<std::uint8_t> all(arena);
        // The frame over the values, starting inside them, or its header over their end.
        CHECK(kind_of([&] { encode_frame_into(codec, meta, values, all.first(bound)); }) ==
              ErrorKind::usage);
        CHECK(kind_of([&] { encode_frame_into(codec, meta, values, all.subspan(100, bound)); }) ==
              ErrorKind::usage);
        CHECK(kind_of([&] {
                  encode_frame_into(codec, meta, values, all.subspan(4 * n - 4, bound));
              }) == ErrorKind::usage);
        // The payload over the values, through Codec.
        CHECK(kind_of([&] { codec.encode_into(meta, values, all.subspan(8, bound)); }) ==
              ErrorKind::usage);
        // The frame over the residual or the decoded buffer, or the two of them shared.
        std::vector<float> residual(n), decoded(n);
        std::vector<std::uint8_t> frame(std::max<std::size_t>(bound, 4 * n));
        const auto out_as_values = std::as_writable_bytes(std::span(frame)).first(4 * n);
        const auto r = std::as_writable_bytes(std::span(residual));
        const auto d = std::as_writable_bytes(std::span(decoded));
        CHECK(kind_of([&] {
                  encode_frame_into(codec, meta, as_bytes_of(x), frame, Feedback{out_as_values, d});
              }) == ErrorKind::usage);
        CHECK(kind_of([&] {
                  encode_frame_into(codec, meta, as_bytes_of(x), frame, Feedback{r, out_as_values});
              }) == ErrorKind::usage);
        CHECK(kind_of([&] {
                  codec.encode_into(
                      meta, as_bytes_of(x),
                      std::span(reinterpret_cast<std::uint8_t*>(residual.data()), 4 * n), r);
              }) == ErrorKind::usage);
        CHECK(kind_of([&] {
                  encode_frame_into(codec, meta, as_bytes_of(x), frame, Feedback{r, r});
              }) == ErrorKind::usage);
        // Right after the values is no overlap: the frame decodes to what encoding gives.
        const std::size_t size = encode_frame_into(codec, meta, values, all.subspan(4 * n, bound));
        CHECK(std::vector<std::uint8_t>(arena.begin() + 4 * n, arena.begin() + 4 * n + size) ==
              encode_frame(codec, meta, as_bytes_of(x)));
    }
}

TEST_CASE("frame and payload bounds never wrap around", "[frame][bounds]") {
    for (const char* spec :
         {"lossless", "cast:to=bf16", "rangeq:bits=8", "topk:density=0.01", "threshold:value=1",
          "dgc:density=0.01", "fft:density=0.1", "dct:density=0.1"}) {
        const Codec codec = Codec::compile(spec);
        for (const DType dtype : {DType::f16, DType::bf16, DType::f32, DType::f64}) {
            for (const std::uint64_t n :
                 {UINT64_MAX, UINT64_MAX - 27, kTwo63 - 1, kTwo63 / 2, UINT64_MAX / 8 + 1}) {
                INFO(spec << " dtype " << static_cast<int>(dtype) << " n " << n);
                const TensorMeta meta{"t", dtype, {n}};
                std::uint64_t bound = 0;
                try {
                    bound = max_frame_size(codec, meta);
                } catch (const Error& e) {
                    CHECK(e.kind() == ErrorKind::bad_input);
                    continue;
                }
                // A bound that holds at least a bitmap of the positions (every codec's does).
                CHECK(bound >= n / 8);
            }
        }
    }
    // The reported case: 2^63 - 1 f16 values, lossless, gave 27.
    const TensorMeta huge{"t", DType::f16, {kTwo63 - 1}};
    CHECK(kind_of([&] { max_frame_size(Codec::compile("lossless"), huge); }) ==
          ErrorKind::bad_input);
    // Its payload bound, 2^64 - 1, still fits; the frame's 28 bytes more do not.
    CHECK(Codec::compile("lossless").max_encoded_size(huge) == UINT64_MAX);
    const TensorMeta small{"t", DType::f32, {1000}};
    CHECK(max_frame_size(Codec::compile("lossless"), small) == 1 + 4000 + 28);
}

TEST_CASE("a dimension above 2^63 - 1 is refused even where the shape holds no element",
          "[frame][stream][shape]") {
    const Codec lossless = Codec::compile("lossless");
    SECTION("an empty tensor, a dimension 0, still round-trips as a frame and a record") {
        const TensorMeta empty{"t", DType::f32, {0, 5}};
        const auto frame = encode_frame(lossless, empty, {});
        CHECK(read_frame_info(frame).shape == empty.shape);
        decode_frame_into(frame, {});
        VectorSink sink;
        StreamWriter writer(sink);
        writer.write(TensorRecord{
            "/e", DType::f32, {0, 5}, {}, lossless.id(), "lossless", lossless.encode(empty, {})});
        writer.finish();
        const auto records = gctest::read_all(sink.bytes);
        REQUIRE(records.size() == 1);
        CHECK(std::get<TensorRecord>(records[0]).shape == empty.shape);
    }
    SECTION("TensorMeta and the writers refuse it as bad input") {
        const TensorMeta meta{"t", DType::f32, {0, kTwo63}};
        CHECK(kind_of([&] { meta.element_count(); }) == ErrorKind::bad_input);
        CHECK(kind_of([&] { encode_frame(lossless, meta, {}); }) == ErrorKind::bad_input);
        VectorSink sink;
        StreamWriter writer(sink);
        CHECK(kind_of([&] {
                  writer.write(TensorRecord{"/e", DType::f32, {0, kTwo63}, {}, 1, "lossless", {0}});
              }) == ErrorKind::bad_input);
    }
    SECTION("a frame declaring one is damaged") {
        auto frame = encode_frame(lossless, TensorMeta{"t", DType::f32, {0, 5}}, {});
        put_u64(frame.data() + 28, kTwo63);  // the second dimension
        seal_frame(frame);
        CHECK(kind_of([&] { read_frame_info(frame); }) == ErrorKind::damaged_stream);
        CHECK(kind_of([&] { decode_frame_into(frame, {}); }) == ErrorKind::damaged_stream);
        put_u64(frame.data() + 28, kTwo63 - 1);  // the largest dimension allowed
        seal_frame(frame);
        CHECK(read_frame_info(frame).shape == std::vector<std::uint64_t>{0, kTwo63 - 1});
    }
    SECTION("a flat frame of an 8-bit type declaring 2^63 elements is damaged") {
        auto frame =
            encode_frame(lossless, TensorMeta{"t", DType::u8, {1}}, std::vector<std::byte>(1));
        put_u64(frame.data() + 12, kTwo63);
        seal_frame(frame);
        CHECK(kind_of([&] { read_frame_info(frame); }) == ErrorKind::damaged_stream);
    }
    SECTION("a stream record declaring one is damaged") {
        VectorSink sink;
        StreamWriter writer(sink);
        writer.write(TensorRecord{"/e",
                                  DType::f32,
                                  {0, 5},
                                  {},
                                  lossless.id(),
                                  "lossless",
                                  lossless.encode(TensorMeta{"e", DType::f32, {0, 5}}, {})});
        writer.finish();
        std::vector<std::uint8_t> bytes = sink.bytes;
        // The record after the stream header: kind, flags, reserved (4), length (8), body,
        // checksum of all that. The body holds the path, the dtype, the rank and the dimensions.
        const std::size_t record = gctest::stream_header().size();
        std::uint64_t length = 0;
        for (int i = 7; i >= 0; --i) length = (length << 8) | bytes[record + 4 + i];
        const std::size_t body = record + 12;
        const std::size_t dims = body + 4 + 2 + 1 + 1;  // path "/e", dtype, rank
        REQUIRE(bytes[dims - 1] == 2);
        REQUIRE(bytes[dims + 8] == 5);
        put_u64(bytes.data() + dims + 8, kTwo63);
        put_u64(bytes.data() + body + length, XXH3_64bits(bytes.data() + record, 12 + length));
        CHECK(kind_of([&] { gctest::read_all(bytes); }) == ErrorKind::damaged_stream);
    }
}
