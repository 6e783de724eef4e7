// Damage detection: every single-bit flip and every truncation of a small real stream is
// refused with Error(damaged_stream) (a flipped length may instead hit a cap: Error(limit)),
// never accepted and never a crash. The sweeps are exhaustive, not sampled.
#include <catch2/catch.hpp>

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "expect_error.hpp"
#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/stream.hpp"
#include "sample_stream.hpp"

using namespace gradcodec;
using gradcodec::testing::thrown_error;

namespace {

// A source that, like a pipe, does not know how much is left.
class PipeSource final : public ByteSource {
  public:
    explicit PipeSource(std::span<const std::uint8_t> bytes) : inner_(bytes) {}
    std::size_t read(std::span<std::uint8_t> out) override { return inner_.read(out); }
    std::optional<std::uint64_t> remaining() const override { return std::nullopt; }

  private:
    SpanSource inner_;
};

struct ReadSummary {
    std::size_t groups = 0, tensors = 0, links = 0;
    std::set<std::uint16_t> codec_ids;
};

// What decode does: every record, and every tensor decoded into a buffer of its size.
ReadSummary read_and_decode(ByteSource& source) {
    ReadSummary summary;
    StreamReader reader(source);
    while (auto record = reader.next()) {
        if (std::holds_alternative<GroupRecord>(*record)) ++summary.groups;
        if (std::holds_alternative<LinkRecord>(*record)) ++summary.links;
        if (const auto* t = std::get_if<TensorRecord>(&*record)) {
            const TensorMeta meta{t->path, t->dtype, t->shape};
            std::vector<std::byte> out(meta.byte_count());
            decode_tensor(t->codec_id, meta, t->payload, out);
            ++summary.tensors;
            summary.codec_ids.insert(t->codec_id);
        }
    }
    return summary;
}

// "" when the bytes were refused as they should be, else what went wrong.
template <typename Source>
std::string refusal_problem(std::span<const std::uint8_t> bytes, bool limit_allowed) {
    try {
        Source source(bytes);
        read_and_decode(source);
        return "accepted";
    } catch (const Error& e) {
        if (e.kind() == ErrorKind::damaged_stream) return "";
        if (e.kind() == ErrorKind::limit && limit_allowed) return "";
        return std::string("wrong error kind: ") + e.what();
    } catch (const std::exception& e) {
        return std::string("not a gradcodec::Error: ") + e.what();
    }
}

std::vector<std::uint8_t> damage_sample() {
    return gctest::sample_stream(gctest::usable_codec_specs());
}

}  // namespace

TEST_CASE("the damage sample is a valid stream with groups, attributes, tensors and links",
          "[damage]") {
    const auto stream = damage_sample();
    SpanSource source(stream);
    const ReadSummary s = read_and_decode(source);
    CHECK(s.groups == 2);
    CHECK(s.tensors >= gctest::sample_tensors().size());
    CHECK(s.links == 2);
    for (const CodecInfo& codec : list_codecs()) {
        INFO("codec " << codec.name);
        CHECK(s.codec_ids.count(codec.id) == 1);  // every decoder sees the sweep
    }
    CHECK(stream.size() < 16384);  // small enough to sweep exhaustively
}

TEST_CASE("every single-bit flip of a small stream is refused", "[damage]") {
    const auto stream = damage_sample();
    std::vector<std::string> problems;
    std::size_t tried = 0;
    for (std::size_t byte = 0; byte < stream.size(); ++byte) {
        for (int bit = 0; bit < 8; ++bit) {
            auto flipped = stream;
            flipped[byte] ^= static_cast<std::uint8_t>(1u << bit);
            const std::string problem = refusal_problem<SpanSource>(flipped, true);
            if (!problem.empty()) {
                problems.push_back("byte " + std::to_string(byte) + " bit " + std::to_string(bit) +
                                   ": " + problem);
            }
            ++tried;
        }
    }
    CHECK(tried == 8 * stream.size());
    for (std::size_t i = 0; i < problems.size() && i < 20; ++i) UNSCOPED_INFO(problems[i]);
    CHECK(problems.empty());
}

TEST_CASE("every truncation of a small stream is refused as damage", "[damage]") {
    const auto stream = damage_sample();
    std::vector<std::string> problems;
    for (std::size_t length = 0; length < stream.size(); ++length) {
        const std::span<const std::uint8_t> head(stream.data(), length);
        // A file knows its size, a pipe does not: both must see the missing end.
        for (const std::string& problem :
             {refusal_problem<SpanSource>(head, false), refusal_problem<PipeSource>(head, false)}) {
            if (!problem.empty())
                problems.push_back("length " + std::to_string(length) + ": " + problem);
        }
    }
    for (std::size_t i = 0; i < problems.size() && i < 20; ++i) UNSCOPED_INFO(problems[i]);
    CHECK(problems.empty());
}

TEST_CASE("a truncated stream says it is truncated and names the record", "[damage]") {
    const auto stream = damage_sample();
    const std::span<const std::uint8_t> head(stream.data(), stream.size() / 2);
    SpanSource source(head);
    const auto e = thrown_error([&] { read_and_decode(source); });
    CHECK(e.kind() == ErrorKind::damaged_stream);
    CHECK_THAT(e.what(), Catch::Contains("truncated") && Catch::Contains("record "));
}

TEST_CASE("bytes after the end marker are refused by a caller that expects one stream",
          "[damage]") {
    // next() stops at the end marker, so a stream can sit inside a larger input; a caller
    // whose input is exactly one stream asks expect_input_end().
    auto stream = damage_sample();
    stream.push_back(0);
    for (const bool pipe : {false, true}) {
        INFO((pipe ? "pipe" : "file"));
        SpanSource file(stream);
        PipeSource fifo(stream);
        ByteSource& source = pipe ? static_cast<ByteSource&>(fifo) : file;
        StreamReader reader(source);
        while (reader.next()) {
        }
        CHECK_THROWS_WITH(reader.expect_input_end(),
                          Catch::Contains("follow the end record") && Catch::Contains("1"));
    }
    SpanSource exact(std::span<const std::uint8_t>(stream.data(), stream.size() - 1));
    StreamReader reader(exact);
    while (reader.next()) {
    }
    CHECK_NOTHROW(reader.expect_input_end());
}
