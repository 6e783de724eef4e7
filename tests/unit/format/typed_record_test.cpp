// Typed dataset records (format 1.1): the library carries a type description and data bytes
// without interpreting them, checks their framing, and marks them so that a 1.0 reader refuses
// the stream instead of dropping the dataset.
#include <xxhash.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/stream.hpp"
#include "stream_bytes.hpp"

using namespace gradcodec;
using gradcodec::testing::thrown_error;

namespace {

using gctest::read_all;

constexpr std::size_t kHeaderBytes = 32;  // fixed header and its checksum, no extension
constexpr std::size_t kFrameBytes = 12;

TypedRecord names_record() {
    Attribute note{"note", AttrKind::vlen_string, DType::f64, 0, 1, 0, {}, {2, 0, 0, 0, 'o', 'k'}};
    return TypedRecord{"/meta/names",
                       {3},
                       {note},
                       {3, 0, 0x19, 1, 1, 0, 8, 0, 0, 0, 0x10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 8, 0},
                       {1, 0, 0, 0, 'a', 0, 0, 0, 0, 2, 0, 0, 0, 'b', 'c'}};
}

std::vector<std::uint8_t> stream_of(const TypedRecord& record) {
    VectorSink sink;
    StreamWriter writer(sink);
    writer.write(record);
    writer.finish();
    return sink.bytes;
}

// Rewrites the first record's body length and checksum after an edit of its body, so that only
// the edited field is wrong.
void reseal_first_record(std::vector<std::uint8_t>& bytes, std::size_t body_length) {
    for (int i = 0; i < 8; ++i)
        bytes[kHeaderBytes + 4 + static_cast<std::size_t>(i)] =
            static_cast<std::uint8_t>(body_length >> (8 * i));
    const std::size_t end = kHeaderBytes + kFrameBytes + body_length;
    const std::uint64_t sum = XXH3_64bits(bytes.data() + kHeaderBytes, end - kHeaderBytes);
    for (int i = 0; i < 8; ++i)
        bytes[end + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(sum >> (8 * i));
}

}  // namespace

TEST_CASE("a typed record carries its type description, data and attributes byte for byte",
          "[stream][typed]") {
    const TypedRecord sent = names_record();
    const auto records = read_all(stream_of(sent));
    REQUIRE(records.size() == 1);
    const auto& got = std::get<TypedRecord>(records[0]);
    CHECK(got.path == sent.path);
    CHECK(got.shape == sent.shape);
    CHECK(got.type == sent.type);
    CHECK(got.data == sent.data);
    REQUIRE(got.attributes.size() == 1);
    CHECK(got.attributes[0].data == sent.attributes[0].data);
}

TEST_CASE("a typed record is kind 4 and not marked skippable, so a 1.0 reader refuses it",
          "[stream][typed]") {
    const auto bytes = stream_of(names_record());
    CHECK(bytes[kHeaderBytes] == 4);
    CHECK(bytes[kHeaderBytes + 1] == 0);
}

TEST_CASE("scalar and empty typed datasets carry no data or one element", "[stream][typed]") {
    TypedRecord empty{"/e", {0, 4}, {}, {3, 0, 0x10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 8, 0}, {}};
    TypedRecord scalar = empty;
    scalar.path = "/s";
    scalar.shape = {};
    scalar.data = {42};
    VectorSink sink;
    StreamWriter writer(sink);
    writer.write(empty);
    writer.write(scalar);
    writer.finish();
    const auto records = read_all(sink.bytes);
    REQUIRE(records.size() == 2);
    CHECK(std::get<TypedRecord>(records[0]).data.empty());
    CHECK(std::get<TypedRecord>(records[1]).shape.empty());
    CHECK(std::get<TypedRecord>(records[1]).data == std::vector<std::uint8_t>{42});
}

TEST_CASE("a writer refuses a typed record without a type description or with one over 64 KiB",
          "[stream][typed]") {
    TypedRecord record = names_record();
    record.type.clear();
    CHECK_THROWS_AS(stream_of(record), Error);
    record.type.assign(65537, 0);
    CHECK_THROWS_AS(stream_of(record), Error);
    record.type.assign(65536, 0);
    CHECK_NOTHROW(stream_of(record));
}

TEST_CASE("a reader refuses a typed record whose type length is 0 or runs past the body",
          "[stream][typed]") {
    const TypedRecord record = names_record();
    const auto good = stream_of(record);
    // Body: path (4 + 11), shape (1 + 8), attributes (2 + the one), then the type length.
    const std::size_t body = kHeaderBytes + kFrameBytes;
    const std::size_t attribute = 4 + 4 + 1 + 1 + 1 + 1 + 4 + 1 + 8 + 6;
    const std::size_t type_length_at = body + 15 + 9 + 2 + attribute;
    std::size_t body_length = 0;
    for (int i = 0; i < 8; ++i)
        body_length |= std::size_t{good[kHeaderBytes + 4 + static_cast<std::size_t>(i)]} << (8 * i);
    REQUIRE(good[type_length_at] == record.type.size());

    auto zero = good;
    zero[type_length_at] = 0;
    reseal_first_record(zero, body_length);
    CHECK_THROWS_WITH(read_all(zero), Catch::Contains("type description of 0 bytes"));

    auto overrun = good;
    overrun[type_length_at + 2] = 0x10;  // 1 MiB and more: past the body
    reseal_first_record(overrun, body_length);
    CHECK_THROWS_AS(read_all(overrun), Error);

    auto trailing = good;
    trailing.insert(trailing.begin() + static_cast<std::ptrdiff_t>(body + body_length), 0);
    reseal_first_record(trailing, body_length + 1);
    CHECK_THROWS_AS(read_all(trailing), Error);
}

TEST_CASE("a typed record's element count is held to the reader's cap", "[stream][typed]") {
    TypedRecord record = names_record();
    record.shape = {1000, 1000};
    ReadLimits limits;
    limits.max_elements = 999999;
    const auto e = thrown_error([&] { read_all(stream_of(record), limits); });
    CHECK(e.kind() == ErrorKind::limit);
    CHECK_THAT(e.what(), Catch::Contains("max_elements"));
}
