#include <catch2/catch.hpp>
#include <random>

#include "expect_error.hpp"
#include "gradcodec/gradcodec.hpp"
#include "stream_bytes.hpp"
#include "test_data.hpp"

using namespace gradcodec;
using gradcodec::testing::as_bytes_of;
using gradcodec::testing::laplace_values;
using gradcodec::testing::thrown_error;

namespace {

using gctest::read_all;

std::vector<std::uint8_t> sample_stream() {
    VectorSink sink;
    StreamWriter writer(sink);
    Attribute loss{
        "loss", AttrKind::numeric, DType::f64, 0, 0, 0, {}, std::vector<std::uint8_t>(8, 0x3f)};
    writer.write(GroupRecord{"/", {}});
    writer.write(GroupRecord{"/step_00010", {loss}});
    const auto values = laplace_values(100, 1);
    const TensorMeta meta{"fc.weight", DType::f32, {10, 10}};
    auto encoded = encode_tensor(parse_codec_spec("lossless"), meta, as_bytes_of(values));
    writer.write(TensorRecord{"/step_00010/fc.weight",
                              DType::f32,
                              {10, 10},
                              {},
                              encoded.codec_id,
                              encoded.spec,
                              encoded.payload});
    writer.write(LinkRecord{"/latest", LinkKind::soft, "/step_00010/fc.weight", ""});
    writer.finish();
    return sink.bytes;
}

ErrorKind kind_of_failure(std::span<const std::uint8_t> bytes,
                          ReadLimits limits = default_read_limits()) {
    return thrown_error([&] { read_all(bytes, limits); }).kind();
}

}  // namespace

TEST_CASE("a stream reads back the records that were written, in order", "[stream]") {
    const auto records = read_all(sample_stream());
    REQUIRE(records.size() == 4);
    CHECK(std::get<GroupRecord>(records[0]).path == "/");
    const auto& group = std::get<GroupRecord>(records[1]);
    REQUIRE(group.attributes.size() == 1);
    CHECK(group.attributes[0].name == "loss");
    const auto& tensor = std::get<TensorRecord>(records[2]);
    CHECK(tensor.path == "/step_00010/fc.weight");
    CHECK(tensor.shape == std::vector<std::uint64_t>{10, 10});
    CHECK(tensor.codec_spec == "lossless");
    const auto& link = std::get<LinkRecord>(records[3]);
    CHECK(link.target == "/step_00010/fc.weight");
}

TEST_CASE("a stream starts with the non-ASCII magic and version 1.2", "[stream]") {
    const auto bytes = sample_stream();
    CHECK(bytes[0] == 0x89);
    CHECK(bytes[1] == 'G');
    CHECK(bytes[8] == 1);
    CHECK(bytes[10] == 2);
}

TEST_CASE("a stream without its end marker is truncated", "[stream]") {
    auto bytes = sample_stream();
    bytes.resize(bytes.size() - 28);  // the end record: 12 frame + 8 count + 8 checksum
    CHECK(kind_of_failure(bytes) == ErrorKind::damaged_stream);
}

TEST_CASE("a newer minor version is accepted and a newer major refused", "[stream]") {
    auto bytes = sample_stream();
    bytes[10] = 7;  // minor 7: but the header checksum now fails, as any unchecked edit must
    CHECK(kind_of_failure(bytes) == ErrorKind::damaged_stream);
    bytes = sample_stream();
    bytes[8] = 2;
    const auto e = thrown_error([&] { read_all(bytes); });
    CHECK_THAT(e.what(),
               Catch::Contains("format version 2.2") && Catch::Contains("understands 1.2"));
}

TEST_CASE("a tensor declaring more elements than the cap is refused before decoding", "[stream]") {
    ReadLimits limits = default_read_limits();
    limits.max_elements = 99;
    const auto e = thrown_error([&] { read_all(sample_stream(), limits); });
    CHECK(e.kind() == ErrorKind::limit);
    CHECK_THAT(e.what(), Catch::Contains("max_elements=99"));
}

TEST_CASE("a record length beyond the bytes that remain is refused without allocating it",
          "[stream]") {
    auto bytes = sample_stream();
    // The first record's frame follows the 32-byte header; its body length is at offset 4.
    for (int i = 0; i < 8; ++i) bytes[32 + 4 + i] = 0xff;
    CHECK(kind_of_failure(bytes) == ErrorKind::limit);
    bytes = sample_stream();
    bytes[32 + 4 + 4] = 0x01;  // 2^32 + small: under the cap on big machines, over what remains
    const ErrorKind kind = kind_of_failure(bytes);
    CHECK((kind == ErrorKind::damaged_stream || kind == ErrorKind::limit));
}

TEST_CASE("a tensor record written from a separate payload has the bytes of one that owns it",
          "[stream]") {
    const auto values = laplace_values(1000, 3);
    const TensorMeta meta{"w", DType::f32, {1000}};
    const Codec codec = Codec::compile("rangeq:bits=8");
    std::vector<std::uint8_t> buffer(codec.max_encoded_size(meta), 0xa5);
    const std::size_t size = codec.encode_into(meta, as_bytes_of(values), buffer);
    const TensorRecord header{"/step_1/w", DType::f32, {1000}, {}, codec.id(), codec.spec(), {}};
    TensorRecord owning = header;
    owning.payload.assign(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(size));

    VectorSink from_record, from_span;
    StreamWriter by_record(from_record), by_span(from_span);
    by_record.write(owning);
    by_span.write(header, std::span<const std::uint8_t>(buffer).first(size));
    by_record.finish();
    by_span.finish();
    CHECK(from_span.bytes == from_record.bytes);
    const auto records = read_all(from_span.bytes);
    REQUIRE(records.size() == 1);
    CHECK(std::get<TensorRecord>(records[0]).payload == owning.payload);
}

TEST_CASE("a tensor record with a payload of its own cannot be given a second one", "[stream]") {
    VectorSink sink;
    StreamWriter writer(sink);
    const TensorRecord record{"/w", DType::f32, {1}, {}, 1, "lossless", {0, 0, 0, 0, 0}};
    const std::vector<std::uint8_t> other{0, 1, 2, 3, 4};
    const auto e = thrown_error([&] { writer.write(record, other); });
    CHECK(e.kind() == ErrorKind::usage);
    CHECK_THAT(e.what(), Catch::Matchers::Contains("/w"));
}
