// Decompression bombs: a short stream that declares huge shapes, counts, section lengths or
// record lengths is refused before anything of that size is allocated, and a cap's message
// names it (max_elements, max_record_bytes) so the CLI can name the flag that raises it.
#include <catch2/catch.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "expect_error.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/stream.hpp"
#include "stream_bytes.hpp"

using namespace gradcodec;
using gctest::put_le;
using gctest::put_string;
using gradcodec::testing::thrown_error;

namespace {

// A pipe-like source that counts what the reader took from it.
class CountingPipe final : public ByteSource {
  public:
    explicit CountingPipe(std::span<const std::uint8_t> bytes) : inner_(bytes) {}
    std::size_t read(std::span<std::uint8_t> out) override {
        const std::size_t n = inner_.read(out);
        consumed += n;
        largest_request = std::max(largest_request, out.size());
        return n;
    }
    std::optional<std::uint64_t> remaining() const override { return std::nullopt; }
    std::size_t consumed = 0;
    std::size_t largest_request = 0;

  private:
    SpanSource inner_;
};

Error read_error(std::span<const std::uint8_t> bytes, ReadLimits limits = default_read_limits()) {
    SpanSource source(bytes);
    return thrown_error([&] {
        StreamReader reader(source, limits);
        while (reader.next()) {
        }
    });
}

std::vector<std::uint8_t> tensor_stream(std::vector<std::uint64_t> shape,
                                        std::vector<std::uint8_t> payload = {0}) {
    VectorSink sink;
    StreamWriter writer(sink);
    TensorRecord t;
    t.path = "/bomb";
    t.dtype = DType::f32;
    t.shape = std::move(shape);
    t.codec_id = 1;
    t.codec_spec = "lossless";
    t.payload = std::move(payload);
    writer.write(t);
    writer.finish();
    return sink.bytes;
}

// A group body whose one attribute's fields are given raw.
std::vector<std::uint8_t> group_with_attribute(std::uint8_t kind, std::uint8_t dtype,
                                               std::uint32_t string_size,
                                               std::vector<std::uint64_t> shape,
                                               std::uint64_t declared_length,
                                               std::size_t actual_length) {
    std::vector<std::uint8_t> body;
    put_string(body, "/g");
    put_le(body, 1, 2);  // one attribute
    put_string(body, "a");
    body.insert(body.end(), {kind, dtype, 0, 0});
    put_le(body, string_size, 4);
    put_le(body, shape.size(), 1);
    for (auto d : shape) put_le(body, d, 8);
    put_le(body, declared_length, 8);
    body.insert(body.end(), actual_length, 0);
    return body;
}

std::vector<std::uint8_t> single_record_stream(std::uint8_t kind,
                                               const std::vector<std::uint8_t>& body) {
    auto bytes = gctest::stream_header();
    gctest::append_record(bytes, kind, body);
    gctest::append_end(bytes, 1);
    return bytes;
}

}  // namespace

TEST_CASE("a short stream declaring 2^40 elements is refused by max_elements", "[limits]") {
    const auto bytes = tensor_stream({1u << 20, 1u << 20});
    CHECK(bytes.size() < 200);
    const Error e = read_error(bytes);
    CHECK(e.kind() == ErrorKind::limit);
    CHECK_THAT(e.what(), Catch::Contains("max_elements=") && Catch::Contains("/bomb") &&
                             Catch::Contains("1048576x1048576"));
}

TEST_CASE("max_elements is inclusive: the cap itself is read, one more is refused", "[limits]") {
    ReadLimits limits;
    limits.max_elements = 1000;
    {
        const auto bytes = tensor_stream({10, 100});
        SpanSource source(bytes);
        StreamReader reader(source, limits);
        const auto record = reader.next();
        REQUIRE(record);
        CHECK(std::get<TensorRecord>(*record).shape == std::vector<std::uint64_t>{10, 100});
    }
    const Error e = read_error(tensor_stream({7, 11, 13}), limits);
    CHECK(e.kind() == ErrorKind::limit);
    CHECK_THAT(e.what(), Catch::Contains("1001 elements") && Catch::Contains("max_elements=1000"));
}

TEST_CASE("a shape whose element count overflows 64 bits is damage", "[limits]") {
    const Error e = read_error(tensor_stream({1ull << 32, 1ull << 32}));
    CHECK(e.kind() == ErrorKind::damaged_stream);
    CHECK_THAT(e.what(), Catch::Contains("overflows"));
}

TEST_CASE("a shape whose byte size overflows 64 bits is damage even without a cap", "[limits]") {
    ReadLimits unlimited;
    unlimited.max_elements = UINT64_MAX;
    const Error e = read_error(tensor_stream({1ull << 31, 1ull << 31}), unlimited);
    CHECK(e.kind() == ErrorKind::damaged_stream);
    CHECK_THAT(e.what(), Catch::Contains("overflows"));
}

TEST_CASE("a record length over max_record_bytes is refused before its body is read", "[limits]") {
    auto bytes = gctest::stream_header();
    const std::size_t header = bytes.size();
    gctest::append_record(bytes, 1, std::vector<std::uint8_t>(16, 0), 0, std::uint64_t{1} << 40);
    CountingPipe pipe(bytes);
    ReadLimits limits;
    limits.max_record_bytes = 1u << 20;
    StreamReader reader(pipe, limits);
    const auto e = thrown_error([&] { reader.next(); });
    CHECK(e.kind() == ErrorKind::limit);
    CHECK_THAT(e.what(),
               Catch::Contains("max_record_bytes=1048576") && Catch::Contains("1099511627776"));
    CHECK(pipe.consumed == header + 12);  // the frame only
}

TEST_CASE("a record longer than a pipe sends is read in growing steps and refused", "[limits]") {
    // 1 MiB of body arrives, 4 MiB are declared: steps of 64 KiB, then as much as has arrived.
    auto bytes = gctest::stream_header();
    gctest::append_record(bytes, 1, std::vector<std::uint8_t>(1u << 20, 0), 0,
                          std::uint64_t{4} << 20);
    CountingPipe pipe(bytes);
    StreamReader reader(pipe);
    CHECK_THROWS_WITH(reader.next(), Catch::Contains("truncated"));
    CHECK(pipe.largest_request <= std::size_t{1} << 20);
}

TEST_CASE("a record length beyond the file's end is refused as truncation", "[limits]") {
    auto bytes = gctest::stream_header();
    gctest::append_record(bytes, 1, std::vector<std::uint8_t>(16, 0), 0, std::uint64_t{1} << 30);
    const Error e = read_error(bytes);
    CHECK(e.kind() == ErrorKind::damaged_stream);
    CHECK_THAT(e.what(), Catch::Contains("truncated") && Catch::Contains("1073741824"));
}

TEST_CASE("a caller's cap near 2^64 cannot make a record length wrap around", "[limits]") {
    auto bytes = gctest::stream_header();
    gctest::append_record(bytes, 1, {}, 0, UINT64_MAX - 3);  // wraps to 4 after + checksum
    ReadLimits unlimited;
    unlimited.max_record_bytes = UINT64_MAX;
    const Error e = read_error(bytes, unlimited);
    CHECK(e.kind() == ErrorKind::damaged_stream);
    CHECK_THAT(e.what(), Catch::Contains("truncated"));
}

TEST_CASE("a lying record length on a pipe costs only the first read step", "[limits]") {
    auto bytes = gctest::stream_header();
    gctest::append_record(bytes, 1, std::vector<std::uint8_t>(16, 0), 0, std::uint64_t{1} << 33);
    CountingPipe pipe(bytes);
    ReadLimits limits;
    limits.max_record_bytes = std::uint64_t{1} << 34;
    StreamReader reader(pipe, limits);
    CHECK_THROWS_WITH(reader.next(), Catch::Contains("truncated"));
    CHECK(pipe.largest_request <= std::size_t{64} << 10);  // 2^33 declared, 24 bytes sent
}

TEST_CASE("an attribute section declaring 2^62 bytes is refused", "[limits]") {
    const auto body = group_with_attribute(0, 3, 0, {4}, std::uint64_t{1} << 62, 16);
    const Error e = read_error(single_record_stream(1, body));
    CHECK(e.kind() == ErrorKind::damaged_stream);
    CHECK_THAT(e.what(), Catch::Contains("4611686018427387904") && Catch::Contains("remain"));
}

TEST_CASE("an attribute shape larger than its bytes is refused", "[limits]") {
    for (const int kind : {0, 1, 2}) {
        INFO("attribute kind " << kind);
        const auto body = group_with_attribute(static_cast<std::uint8_t>(kind), 3, 4,
                                               {std::uint64_t{1} << 61, 8}, 16, 16);
        const Error e = read_error(single_record_stream(1, body));
        CHECK(e.kind() == ErrorKind::damaged_stream);
    }
}

TEST_CASE("a count of attributes over the format's limit is refused", "[limits]") {
    std::vector<std::uint8_t> body;
    put_string(body, "/g");
    put_le(body, 65535, 2);
    const Error e = read_error(single_record_stream(1, body));
    CHECK(e.kind() == ErrorKind::damaged_stream);
    CHECK_THAT(e.what(), Catch::Contains("65535 attributes"));
}

TEST_CASE("a path declaring 2^31 bytes is refused", "[limits]") {
    std::vector<std::uint8_t> body;
    put_le(body, std::uint64_t{1} << 31, 4);
    body.insert(body.end(), 8, 'x');
    const Error e = read_error(single_record_stream(1, body));
    CHECK(e.kind() == ErrorKind::damaged_stream);
    CHECK_THAT(e.what(), Catch::Contains("2147483648"));
}

TEST_CASE("a rank over the format's limit is refused", "[limits]") {
    std::vector<std::uint8_t> body;
    put_string(body, "/t");
    body.push_back(3);    // f32
    body.push_back(255);  // rank
    const Error e = read_error(single_record_stream(2, body));
    CHECK(e.kind() == ErrorKind::damaged_stream);
    CHECK_THAT(e.what(), Catch::Contains("rank 255"));
}

TEST_CASE("a tensor payload declaring 2^60 bytes is refused", "[limits]") {
    std::vector<std::uint8_t> body;
    put_string(body, "/t");
    body.push_back(3);
    body.push_back(1);
    put_le(body, 4, 8);  // shape {4}
    put_le(body, 0, 2);  // no attributes
    put_le(body, 1, 2);  // lossless
    put_string(body, "lossless");
    put_le(body, std::uint64_t{1} << 60, 8);
    body.insert(body.end(), 17, 0);
    const Error e = read_error(single_record_stream(2, body));
    CHECK(e.kind() == ErrorKind::damaged_stream);
    CHECK_THAT(e.what(), Catch::Contains("record 1 (t)"));
}

TEST_CASE("a header extension over the format's limit is refused", "[limits]") {
    auto bytes = gctest::stream_header();
    bytes[20] = 0;
    bytes[21] = 0;
    bytes[22] = 0;
    bytes[23] = 0x40;  // 2^30 bytes of extension
    const Error e = read_error(bytes);
    CHECK(e.kind() == ErrorKind::damaged_stream);
    CHECK_THAT(e.what(), Catch::Contains("extension"));
}

TEST_CASE("100 000 skippable unknown records are skipped without deep recursion", "[limits]") {
    auto bytes = gctest::stream_header();
    constexpr std::size_t kRecords = 100'000;  // recursion this deep overflows an 8 MiB stack
    bytes.reserve(bytes.size() + kRecords * 20 + 28);
    for (std::size_t i = 0; i < kRecords; ++i) gctest::append_record(bytes, 0x80, {}, 0x01);
    gctest::append_end(bytes, kRecords);
    SpanSource source(bytes);
    StreamReader reader(source);
    CHECK_FALSE(reader.next().has_value());
    CHECK(reader.record_index() == kRecords);
}
