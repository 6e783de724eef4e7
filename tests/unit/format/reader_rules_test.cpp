// The reader rules of format-spec/FORMAT.md sections 2.3, 2.4 and 3 that only the reference
// reader used to know: which attribute string types are refused, that invalid UTF-8 and bool
// bytes other than 0 and 1 are carried unchanged, and that nothing may follow the end record.
#include <catch2/catch.hpp>

#include <string>
#include <variant>
#include <vector>

#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/stream.hpp"

using namespace gradcodec;

namespace {

std::vector<std::uint8_t> stream_of(const GroupRecord& group) {
    VectorSink sink;
    StreamWriter writer(sink);
    writer.write(group);
    writer.finish();
    return sink.bytes;
}

// The records read back, or the reader's message.
std::variant<std::vector<Record>, std::string> read_back(const std::vector<std::uint8_t>& bytes) {
    SpanSource source(bytes);
    std::vector<Record> records;
    try {
        StreamReader reader(source);
        while (auto r = reader.next()) records.push_back(std::move(*r));
        reader.expect_input_end();
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::damaged_stream);
        return std::string(e.what());
    }
    return records;
}

Attribute fixed_string(std::uint8_t cset, std::uint8_t strpad, std::uint32_t size) {
    Attribute a;
    a.name = "note";
    a.kind = AttrKind::fixed_string;
    a.cset = cset;
    a.strpad = strpad;
    a.string_size = size;
    a.data = std::vector<std::uint8_t>(size, 'x');
    return a;
}

}  // namespace

TEST_CASE("attribute string types other than ASCII or UTF-8 and the three paddings are refused",
          "[stream][reader]") {
    for (std::uint8_t cset = 0; cset <= 2; ++cset) {
        for (std::uint8_t strpad = 0; strpad <= 3; ++strpad) {
            INFO("cset " << int{cset} << ", strpad " << int{strpad});
            const auto result =
                read_back(stream_of(GroupRecord{"/g", {fixed_string(cset, strpad, 4)}}));
            if (cset <= 1 && strpad <= 2) {
                CHECK(std::holds_alternative<std::vector<Record>>(result));
            } else {
                REQUIRE(std::holds_alternative<std::string>(result));
                CHECK_THAT(std::get<std::string>(result), Catch::Contains("unknown string type"));
            }
        }
    }
    const auto empty = read_back(stream_of(GroupRecord{"/g", {fixed_string(0, 0, 0)}}));
    REQUIRE(std::holds_alternative<std::string>(empty));
    CHECK_THAT(std::get<std::string>(empty), Catch::Contains("string size mismatch"));
}

TEST_CASE("invalid UTF-8 in names and strings is carried unchanged, not refused",
          "[stream][reader]") {
    const std::string invalid = "/g\xff\xfe\xc0";  // never valid in UTF-8
    Attribute a = fixed_string(1, 1, 3);
    a.name = "n\xff";
    a.data = {0xc3, 0x28, 0xa0};  // an invalid two-byte sequence
    const auto result = read_back(stream_of(GroupRecord{invalid, {a}}));
    REQUIRE(std::holds_alternative<std::vector<Record>>(result));
    const auto& group = std::get<GroupRecord>(std::get<std::vector<Record>>(result).at(0));
    CHECK(group.path == invalid);
    CHECK(group.attributes.at(0).name == a.name);
    CHECK(group.attributes.at(0).data == a.data);
}

TEST_CASE("bool bytes other than 0 and 1 decode unchanged", "[stream][reader]") {
    const std::vector<std::uint8_t> bytes{0, 1, 2, 255};
    const TensorMeta meta{"/flags", DType::bool8, {bytes.size()}};
    const auto e =
        encode_tensor(parse_codec_spec("lossless"), meta, std::as_bytes(std::span(bytes)));
    std::vector<std::uint8_t> back(bytes.size());
    decode_tensor(e.codec_id, meta, e.payload, std::as_writable_bytes(std::span(back)));
    CHECK(back == bytes);
}

TEST_CASE("a byte after the end record is damage", "[stream][reader]") {
    auto bytes = stream_of(GroupRecord{"/", {}});
    CHECK(std::holds_alternative<std::vector<Record>>(read_back(bytes)));
    bytes.push_back(0);
    const auto result = read_back(bytes);
    REQUIRE(std::holds_alternative<std::string>(result));
    CHECK_THAT(std::get<std::string>(result), Catch::Contains("follow the end record"));
}
