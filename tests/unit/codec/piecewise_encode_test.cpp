// A payload encoded piece by piece and written as one record in pieces: the same bytes as the
// whole tensor encoded and written at once.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <thread>
#include <vector>

#include "expect_error.hpp"
#include "gradcodec/gradcodec.hpp"
#include "stream_bytes.hpp"
#include "test_data.hpp"

using namespace gradcodec;
using gradcodec::testing::as_bytes_of;
using gradcodec::testing::laplace_values;
using gradcodec::testing::thrown_error;

namespace {

// The payload made of pieces cut at `cuts` (element counts, in order), each piece encoded
// into a buffer sized by max_encoded_size of its own length, or by the payload's size where
// that is larger (a top-k's first piece carries its whole payload).
// A codec that needs a survey (rangeq, topk) is given one made from the same cuts first.
std::vector<std::uint8_t> encode_in_pieces(const Codec& codec, const TensorMeta& meta,
                                           std::span<const std::byte> values,
                                           const std::vector<std::uint64_t>& cuts) {
    const std::size_t element = dtype_size(meta.dtype);
    std::optional<PieceSurvey> survey;
    if (codec.needs_piece_survey(meta)) {
        survey = codec.begin_survey(meta);
        std::uint64_t first = 0;
        for (const std::uint64_t count : cuts) {
            survey->add(values.subspan(first * element, count * element));
            first += count;
        }
        REQUIRE(survey->complete());
    }
    const PieceSurvey* surveyed = survey ? &*survey : nullptr;
    REQUIRE(codec.piecewise_size(meta, surveyed).has_value());
    std::vector<std::uint8_t> payload;
    std::uint64_t first = 0;
    for (const std::uint64_t count : cuts) {
        const TensorMeta piece_meta{meta.name, meta.dtype, {count}};
        std::vector<std::uint8_t> out(std::max<std::uint64_t>(
            codec.max_encoded_size(piece_meta), *codec.piecewise_size(meta, surveyed)));
        const std::size_t size = codec.encode_piece(
            meta, first, values.subspan(first * element, count * element), out, surveyed);
        payload.insert(payload.end(), out.begin(), out.begin() + static_cast<long>(size));
        first += count;
    }
    CHECK(payload.size() == codec.piecewise_size(meta, surveyed));
    return payload;
}

// The tensor's values narrowed to a 16-bit float dtype: cast's payload after its target byte.
std::vector<std::byte> narrow_bytes(const std::vector<float>& values, DType dtype) {
    const Codec cast = Codec::compile(dtype == DType::f16 ? "cast:to=f16" : "cast:to=bf16");
    const std::vector<std::uint8_t> payload =
        cast.encode({"g", DType::f32, {values.size()}}, as_bytes_of(values));
    std::vector<std::byte> bytes(payload.size() - 1);
    std::transform(payload.begin() + 1, payload.end(), bytes.begin(),
                   [](std::uint8_t b) { return std::byte{b}; });
    return bytes;
}

std::uint64_t cut_total(const std::vector<std::uint64_t>& cuts) {
    std::uint64_t total = 0;
    for (const std::uint64_t c : cuts) total += c;
    return total;
}

std::vector<std::byte> f64_bytes(const std::vector<float>& values) {
    std::vector<double> wide(values.begin(), values.end());
    std::vector<std::byte> bytes(wide.size() * 8);
    std::memcpy(bytes.data(), wide.data(), bytes.size());
    return bytes;
}

std::string message_of_piece_failure(const Codec& codec, const TensorMeta& meta,
                                     std::uint64_t first, std::span<const std::byte> values) {
    std::vector<std::uint8_t> out(1 << 20);
    const auto e = thrown_error([&] { codec.encode_piece(meta, first, values, out); });
    CHECK(e.kind() == ErrorKind::bad_input);
    return e.what();
}

// `values` narrowed to f16 and to bf16: the pieces cut at `cuts` give the whole encode's bytes.
void check_pieces_in_16_bits(const Codec& codec, const std::vector<float>& values,
                             const std::vector<std::uint64_t>& cuts) {
    for (const DType dtype : {DType::f16, DType::bf16}) {
        const TensorMeta narrow{"g", dtype, {values.size()}};
        const std::vector<std::byte> bytes = narrow_bytes(values, dtype);
        CHECK(encode_in_pieces(codec, narrow, bytes, cuts) == codec.encode(narrow, bytes));
    }
}

// Encodes `values`, non-finite ones allowed, whole and in pieces cut each way of `cuttings`;
// every cutting must give the whole encode's bytes, which are returned.
std::vector<std::uint8_t> nonfinite_pieces_match_whole(
    const char* spec, const std::vector<float>& values,
    const std::vector<std::vector<std::uint64_t>>& cuttings) {
    EncodeOptions options;
    options.allow_nonfinite = true;
    const Codec codec = Codec::compile(spec, options);
    const TensorMeta meta{"g", DType::f32, {values.size()}};
    const auto bytes = as_bytes_of(values);
    const std::vector<std::uint8_t> whole = codec.encode(meta, bytes);
    for (const auto& cuts : cuttings) {
        INFO(spec << " in " << cuts.size() << " pieces");
        CHECK(encode_in_pieces(codec, meta, bytes, cuts) == whole);
    }
    return whole;
}

// A stream of group /step_1 and `record` with `payload`, written in one call: what writing the
// payload in pieces must reproduce.
std::vector<std::uint8_t> step_with_record_written_whole(const TensorRecord& record,
                                                         std::span<const std::uint8_t> payload) {
    VectorSink whole;
    StreamWriter writer(whole);
    writer.write(GroupRecord{"/step_1", {}});
    writer.write(record, payload);
    writer.finish();
    return whole.bytes;
}

}  // namespace

TEST_CASE("cast encoded in pieces of any length gives the bytes of the whole encode", "[pieces]") {
    const std::vector<float> values = laplace_values(200'003, 7);
    const auto threads = GENERATE(1u, 3u);
    const auto spec = GENERATE(as<std::string>{}, "cast:to=f16", "cast:to=bf16");
    const Codec codec = Codec::compile(spec).with_threads(threads);
    const std::vector<std::vector<std::uint64_t>> cuttings = {
        {200'003}, {1, 65'536, 100'000, 34'466}, {3, 0, 200'000, 0}, {131'072, 68'931}};
    SECTION("from f32") {
        const TensorMeta meta{"g", DType::f32, {200'003}};
        const auto bytes = as_bytes_of(values);
        REQUIRE(codec.piecewise_size(meta) == codec.encode(meta, bytes).size());
        for (const auto& cuts : cuttings)
            CHECK(encode_in_pieces(codec, meta, bytes, cuts) == codec.encode(meta, bytes));
    }
    SECTION("from f64, rounded once") {
        const TensorMeta meta{"g", DType::f64, {200'003}};
        const auto bytes = f64_bytes(values);
        for (const auto& cuts : cuttings)
            CHECK(encode_in_pieces(codec, meta, bytes, cuts) == codec.encode(meta, bytes));
    }
}

TEST_CASE("a value out of range in a piece is named by its index in the whole tensor", "[pieces]") {
    std::vector<float> values = laplace_values(1000, 3);
    values[777] = 70000.0f;  // beyond f16's 65504
    const TensorMeta meta{"layer.weight", DType::f32, {5000}};
    const Codec codec = Codec::compile("cast:to=f16");
    const std::string message = message_of_piece_failure(codec, meta, 4000, as_bytes_of(values));
    CHECK(message.find("layer.weight: element 4777") != std::string::npos);
}

TEST_CASE("rangeq encoded in surveyed pieces gives the bytes of the whole encode", "[pieces]") {
    const auto threads = GENERATE(1u, 3u);
    const auto spec = GENERATE(as<std::string>{}, "rangeq:bits=8", "rangeq:bits=3",
                               "rangeq:bits=16", "rangeq:bits=5,round=truncate",
                               "rangeq:bits=8,mantissa=2", "rangeq:bits=6,eps=1e-7");
    const Codec codec = Codec::compile(spec).with_threads(threads);
    INFO(spec << " on " << threads << " threads");
    // Large tensors choose the mantissa from a histogram, small ones (up to 4096 values) on
    // the values themselves; both are gathered piece by piece.
    const std::vector<std::vector<std::uint64_t>> cuttings = {
        {200'003}, {8, 65'536, 100'000, 34'459}, {200'000, 3}, {1000}, {8, 0, 992}, {999}, {0}};
    for (const auto& cuts : cuttings) {
        const std::uint64_t n = cut_total(cuts);
        std::vector<float> values = laplace_values(n, 11 + n);
        const TensorMeta meta{"g", DType::f32, {n}};
        CHECK(encode_in_pieces(codec, meta, as_bytes_of(values), cuts) ==
              codec.encode(meta, as_bytes_of(values)));
        // 16-bit tensors, with values at f16's largest, where the ladder may be clamped.
        for (std::size_t i = 0; i < std::min<std::size_t>(n, 5); ++i)
            values[i * (n / 5)] = i % 2 == 0 ? 65504.0f : -65504.0f;
        check_pieces_in_16_bits(codec, values, cuts);
    }
}

TEST_CASE("rangeq in pieces carries non-finite values in the whole tensor's list", "[pieces]") {
    std::vector<float> values = laplace_values(100'000, 21);
    values[5] = std::numeric_limits<float>::quiet_NaN();
    values[70'001] = -std::numeric_limits<float>::infinity();
    values[99'999] = std::numeric_limits<float>::infinity();
    const std::vector<std::uint8_t> whole = nonfinite_pieces_match_whole(
        "rangeq:bits=8", values, {{65'536, 34'464}, {8, 70'000, 29'992}});
    std::vector<float> back(values.size());
    const TensorMeta meta{"g", DType::f32, {100'000}};
    decode_tensor(Codec::compile("rangeq:bits=8").id(), meta, whole,
                  as_writable_bytes(std::span(back)));
    CHECK(std::isnan(back[5]));
    CHECK(back[70'001] == -std::numeric_limits<float>::infinity());
}

TEST_CASE("a rangeq survey names a non-finite value by its index in the whole tensor", "[pieces]") {
    std::vector<float> values = laplace_values(10'000, 4);
    values[6'543] = std::numeric_limits<float>::infinity();
    const TensorMeta meta{"layer.weight", DType::f32, {10'000}};
    const Codec codec = Codec::compile("rangeq:bits=8");
    PieceSurvey survey = codec.begin_survey(meta);
    const auto bytes = as_bytes_of(values);
    survey.add(bytes.first(4'096 * 4));
    const auto e = thrown_error([&] { survey.add(bytes.subspan(4'096 * 4)); });
    CHECK(e.kind() == ErrorKind::bad_input);
    CHECK(std::string(e.what()).find("layer.weight: element 6543 is infinite") !=
          std::string::npos);
}

TEST_CASE("rangeq pieces need a complete survey of the same tensor, on 8-element starts",
          "[pieces]") {
    const TensorMeta meta{"g", DType::f32, {1000}};
    const std::vector<float> values = laplace_values(1000, 5);
    const auto bytes = as_bytes_of(values);
    const Codec codec = Codec::compile("rangeq:bits=4");
    CHECK(codec.needs_piece_survey(meta));
    CHECK(codec.piece_alignment() == 8);
    std::vector<std::uint8_t> out(codec.max_encoded_size(meta));
    const auto usage_error = [](auto&& call) {
        try {
            call();
        } catch (const Error& e) {
            return e.kind() == ErrorKind::usage;
        }
        return false;
    };
    CHECK(usage_error([&] { (void)codec.piecewise_size(meta); }));
    CHECK(usage_error([&] { codec.encode_piece(meta, 0, bytes, out); }));
    PieceSurvey survey = codec.begin_survey(meta);
    survey.add(bytes.first(400 * 4));
    CHECK_FALSE(survey.complete());
    CHECK(usage_error([&] { codec.encode_piece(meta, 0, bytes, out, &survey); }));
    CHECK(usage_error([&] { survey.add(bytes.subspan(400 * 4, 3 * 4)); }) == false);
    // The next piece started at 403, not on a multiple of 8.
    CHECK(usage_error([&] { survey.add(bytes.subspan(403 * 4)); }));
    PieceSurvey whole = codec.begin_survey(meta);
    whole.add(bytes);
    CHECK(whole.complete());
    CHECK(usage_error([&] { whole.add(bytes.first(8)); }));  // past the end
    CHECK(usage_error(
        [&] { codec.encode_piece(meta, 4, bytes.subspan(4 * 4, 8 * 4), out, &whole); }));
    const TensorMeta other{"h", DType::f32, {1000}};
    CHECK(usage_error([&] { codec.encode_piece(other, 0, bytes, out, &whole); }));
    CHECK(usage_error([&] { (void)Codec::compile("rangeq:bits=3").piecewise_size(meta, &whole); }));
    CHECK(usage_error([&] { PieceSurvey().add(bytes); }));
    CHECK(codec.encode_piece(meta, 0, bytes, out, &whole) == codec.encode(meta, bytes).size());
    // f64 tensors are narrowed as a whole; cast needs no survey.
    CHECK_FALSE(codec.needs_piece_survey({"d", DType::f64, {10}}));
    CHECK_FALSE(codec.piecewise_size({"d", DType::f64, {10}}).has_value());
    CHECK_FALSE(Codec::compile("cast").needs_piece_survey(meta));
    CHECK(usage_error([&] { (void)Codec::compile("cast").begin_survey(meta); }));
}

TEST_CASE("codecs whose payload depends on the whole tensor do not encode in pieces", "[pieces]") {
    const TensorMeta meta{"g", DType::f32, {1000}};
    const std::vector<float> values = laplace_values(1000, 5);
    for (const char* spec : {"lossless", "dgc:density=0.01", "fft"}) {
        const Codec codec = Codec::compile(spec);
        CHECK_FALSE(codec.needs_piece_survey(meta));
        CHECK_FALSE(codec.piecewise_size(meta).has_value());
        std::vector<std::uint8_t> out(codec.max_encoded_size(meta));
        INFO(spec);
        const auto e = thrown_error([&] { codec.encode_piece(meta, 0, as_bytes_of(values), out); });
        CHECK(e.kind() == ErrorKind::usage);
    }
    // cast is float-only: an integer tensor has no piecewise payload either.
    CHECK_FALSE(Codec::compile("cast").piecewise_size({"i", DType::i32, {10}}).has_value());
}

TEST_CASE("a piece outside the tensor or of partial elements is refused", "[pieces]") {
    const TensorMeta meta{"g", DType::f32, {100}};
    const std::vector<float> values(60, 1.0f);
    const Codec codec = Codec::compile("cast");
    std::vector<std::uint8_t> out(1000);
    CHECK_THROWS_AS(codec.encode_piece(meta, 50, as_bytes_of(values), out), Error);
    CHECK_THROWS_AS(codec.encode_piece(meta, 0, as_bytes_of(values).first(7), out), Error);
    std::vector<std::uint8_t> small(10);
    CHECK_THROWS_AS(codec.encode_piece(meta, 0, as_bytes_of(values), small), Error);
}

TEST_CASE("a record whose payload is written in pieces has the bytes of one written whole",
          "[pieces][stream]") {
    const std::vector<float> values = laplace_values(10'000, 9);
    const TensorMeta meta{"fc.weight", DType::f32, {100, 100}};
    const Codec codec = Codec::compile("cast:to=bf16");
    const std::vector<std::uint8_t> payload = codec.encode(meta, as_bytes_of(values));
    const TensorRecord record{"/step_1/fc.weight", DType::f32,   {100, 100}, {},
                              codec.id(),          codec.spec(), {}};
    const std::vector<std::uint8_t> whole = step_with_record_written_whole(record, payload);
    VectorSink pieces;
    {
        StreamWriter writer(pieces);
        writer.write(GroupRecord{"/step_1", {}});
        writer.begin(record, payload.size());
        const std::span<const std::uint8_t> all(payload);
        writer.add_payload(all.first(1));
        writer.add_payload(all.subspan(1, 0));
        writer.add_payload(all.subspan(1, 12'345));
        writer.add_payload(all.subspan(12'346));
        writer.finish();
        CHECK(writer.records_written() == 2);
    }
    CHECK(pieces.bytes == whole);
    CHECK(gctest::read_all(pieces.bytes).size() == 2);
}

TEST_CASE("a record left short of its declared payload blocks every later write",
          "[pieces][stream]") {
    VectorSink sink;
    StreamWriter writer(sink);
    const TensorRecord record{"/x", DType::f32, {4}, {}, 2, "cast", {}};
    writer.begin(record, 9);
    const std::vector<std::uint8_t> piece(5, 0);
    writer.add_payload(piece);
    CHECK_THROWS_AS(writer.finish(), Error);
    CHECK_THROWS_AS(writer.write(GroupRecord{"/g", {}}), Error);
    CHECK_THROWS_AS(writer.begin(record, 9), Error);
    // Nor may a piece run past the declared size.
    CHECK_THROWS_AS(writer.add_payload(piece), Error);
    writer.add_payload(std::span(piece).first(4));
    writer.finish();
    CHECK_THROWS_AS(writer.add_payload(piece), Error);
    const auto records = gctest::read_all(sink.bytes);
    REQUIRE(records.size() == 1);
    CHECK(std::get<TensorRecord>(records[0]).payload.size() == 9);
}

TEST_CASE(
    "a record prepared and hashed in pieces on another thread writes the bytes of one "
    "written whole",
    "[pieces][stream]") {
    const std::vector<float> values = laplace_values(10'000, 9);
    const TensorMeta meta{"fc.weight", DType::f32, {100, 100}};
    const Codec codec = Codec::compile("rangeq:bits=8");
    const std::vector<std::uint8_t> payload = codec.encode(meta, as_bytes_of(values));
    Attribute scale{
        "scale", AttrKind::numeric, DType::f64, 0, 0, 0, {}, std::vector<std::uint8_t>(8, 0x3f)};
    const TensorRecord record{"/step_1/fc.weight", DType::f32,   {100, 100}, {scale},
                              codec.id(),          codec.spec(), {}};
    const std::vector<std::uint8_t> whole = step_with_record_written_whole(record, payload);
    const std::span<const std::uint8_t> all(payload);
    std::optional<PreparedRecord> prepared;
    std::thread([&] {
        prepared.emplace(record, payload.size());
        prepared->add_payload(all.first(1));
        prepared->add_payload(all.subspan(1, 0));
        prepared->add_payload(all.subspan(1, 4'321));
        prepared->add_payload(all.subspan(4'322));
    }).join();
    CHECK(prepared->payload_size() == payload.size());
    VectorSink sink;
    {
        StreamWriter writer(sink);
        writer.write(GroupRecord{"/step_1", {}});
        writer.write(std::move(*prepared), payload);
        writer.finish();
        CHECK(writer.records_written() == 2);
    }
    CHECK(sink.bytes == whole);
    const auto records = gctest::read_all(sink.bytes);
    REQUIRE(records.size() == 2);
    CHECK(std::get<TensorRecord>(records[1]).payload == payload);
}

TEST_CASE(
    "a prepared record is refused, with nothing written, unless all its payload was hashed "
    "and given",
    "[pieces][stream]") {
    const TensorRecord record{"/x", DType::f32, {4}, {}, 2, "cast", {}};
    const std::vector<std::uint8_t> payload(9, 0x5a);
    const std::span<const std::uint8_t> all(payload);
    VectorSink sink;
    StreamWriter writer(sink);
    const std::size_t header_bytes = sink.bytes.size();

    PreparedRecord short_of_payload(record, payload.size());
    short_of_payload.add_payload(all.first(5));
    CHECK_THROWS_AS(writer.write(std::move(short_of_payload), payload), Error);
    CHECK(sink.bytes.size() == header_bytes);

    PreparedRecord hashed(record, payload.size());
    CHECK_THROWS_AS(hashed.add_payload(std::vector<std::uint8_t>(10)), Error);  // past its size
    hashed.add_payload(all);
    CHECK_THROWS_AS(writer.write(std::move(hashed), all.first(8)), Error);  // a different size
    CHECK(sink.bytes.size() == header_bytes);
    // A refused write leaves the record with its caller, whole: it may be written again.
    writer.write(std::move(hashed), all);  // NOLINT(bugprone-use-after-move)
    // Written once only: a record the writer took is spent, and the writer says so.
    CHECK_THROWS_AS(writer.write(std::move(hashed), all),  // NOLINT(bugprone-use-after-move)
                    Error);

    TensorRecord with_payload = record;
    with_payload.payload = payload;
    CHECK_THROWS_AS(PreparedRecord(with_payload, payload.size()), Error);

    // Nor may it cut into a record whose payload is still coming.
    PreparedRecord waiting(record, payload.size());
    waiting.add_payload(all);
    writer.begin(record, payload.size());
    CHECK_THROWS_AS(writer.write(std::move(waiting), all), Error);
    writer.add_payload(all);
    writer.write(std::move(waiting), all);  // NOLINT(bugprone-use-after-move): it was refused
    writer.finish();
    const auto records = gctest::read_all(sink.bytes);
    REQUIRE(records.size() == 3);
    for (const Record& r : records) CHECK(std::get<TensorRecord>(r).payload == payload);
}

TEST_CASE("top-k encoded from a survey of pieces gives the bytes of the whole encode",
          "[pieces][topk]") {
    const auto threads = GENERATE(1u, 3u);
    const auto spec =
        GENERATE(as<std::string>{}, "topk:density=0.01", "topk:density=0.001,values=rangeq,bits=8",
                 "topk:count=7,values=f32", "topk:density=0.5,values=f16");
    const Codec codec = Codec::compile(spec).with_threads(threads);
    INFO(spec << " on " << threads << " threads");
    const std::vector<std::vector<std::uint64_t>> cuttings = {
        {200'003}, {8, 65'536, 100'000, 34'459}, {1, 0, 200'002}, {1000}, {999}, {0}};
    for (const auto& cuts : cuttings) {
        const std::uint64_t n = cut_total(cuts);
        std::vector<float> values = laplace_values(n, 11 + n);
        const TensorMeta meta{"g", DType::f32, {n}};
        CHECK(codec.needs_piece_survey(meta));
        CHECK(encode_in_pieces(codec, meta, as_bytes_of(values), cuts) ==
              codec.encode(meta, as_bytes_of(values)));
        // Ties everywhere: a few distinct magnitudes.
        for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<float>(i % 5) - 2.0f;
        CHECK(encode_in_pieces(codec, meta, as_bytes_of(values), cuts) ==
              codec.encode(meta, as_bytes_of(values)));
        check_pieces_in_16_bits(codec, values, cuts);
    }
}

TEST_CASE("top-k in pieces carries non-finite values as the whole encode does", "[pieces][topk]") {
    std::vector<float> values = laplace_values(300'000, 21);
    values[5] = std::numeric_limits<float>::quiet_NaN();
    values[170'001] = -std::numeric_limits<float>::infinity();
    values[299'999] = std::numeric_limits<float>::infinity();
    values[200'000] = std::numeric_limits<float>::quiet_NaN();
    nonfinite_pieces_match_whole("topk:count=3", values, {{65'536, 234'464}, {150'000, 150'000}});
}

TEST_CASE("a top-k survey names the first non-finite value as the whole encode does",
          "[pieces][topk]") {
    std::vector<float> values = laplace_values(300'000, 4);
    values[150'000] = std::numeric_limits<float>::infinity();  // after the first prunes
    values[160'000] = std::numeric_limits<float>::quiet_NaN();
    const TensorMeta meta{"layer.weight", DType::f32, {300'000}};
    for (const char* spec : {"topk:count=1", "topk:density=0.01"}) {
        const Codec codec = Codec::compile(spec);
        const auto bytes = as_bytes_of(values);
        std::string whole;
        try {
            codec.encode(meta, bytes);
        } catch (const Error& e) {
            whole = e.what();
        }
        CHECK(whole.find("layer.weight: element 150000 is infinite") != std::string::npos);
        PieceSurvey survey = codec.begin_survey(meta);
        survey.add(bytes.first(140'000 * 4));
        const auto e = thrown_error([&] { survey.add(bytes.subspan(140'000 * 4)); });
        CHECK(e.kind() == ErrorKind::bad_input);
        CHECK(std::string(e.what()) == whole);
    }
}
