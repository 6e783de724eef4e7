// rangeq: every value as an N-bit range-based float (SuperNeurons Alg. 1, sign-magnitude),
// bit-packed. The payload is one range-float section (format-spec/codec-rangeq.md).
#include <array>

#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "codec/piece_coding.hpp"
#include "common/byte_io.hpp"
#include "common/float_values.hpp"
#include "common/spec_params.hpp"
#include "quant/range_section.hpp"
#include "quant/value_coder.hpp"

namespace gradcodec {
namespace {

RangeParams parse_params(const CodecSpec& spec) {
    SpecParams p(spec);
    const RangeParams out = parse_range_params(p, 8);
    p.finish();
    return out;
}

void encode(const RangeParams& params, const TensorMeta& meta, std::span<const std::byte> data,
            const EncodeOptions& options, ByteOutput& out) {
    encode_float32(meta, data, [&](std::span<const float> values) {
        write_range_section(params, values, meta, options, out, dtype_value_limit(meta.dtype));
    });
}

// The first pass of an encode in pieces: what the ladder is chosen from, then the choice.
struct RangeqSurvey {
    RangeParams params;
    EncodeOptions options;
    RangeSurvey values;
    std::optional<RangePlan> plan;  // once the last piece is surveyed
};

void plan_when_complete(RangeqSurvey& s, const TensorMeta& meta) {
    if (s.values.count == meta.element_count())
        s.plan = plan_range_section(s.params, s.values, meta, dtype_value_limit(meta.dtype));
}

std::any begin_survey(const std::any& compiled, const TensorMeta& meta,
                      const EncodeOptions& options) {
    RangeqSurvey s{std::any_cast<const RangeParams&>(compiled), options, {}, std::nullopt};
    plan_when_complete(s, meta);
    return s;
}

void survey_piece(std::any& survey, const TensorMeta& meta, std::uint64_t,
                  std::span<const std::byte> data) {
    auto& s = std::any_cast<RangeqSurvey&>(survey);
    const Float32Values values(meta.dtype, data);
    survey_range_values(s.params, meta, meta.element_count(), s.options, values.values(), s.values);
    plan_when_complete(s, meta);
}

const RangePlan& complete_plan(const std::any* survey) {
    return *std::any_cast<const RangeqSurvey&>(*survey).plan;
}

std::uint64_t piece_payload_size(const std::any&, const TensorMeta& meta, const std::any* survey) {
    return range_section_size(complete_plan(survey), meta.element_count());
}

void encode_piece(const std::any&, const TensorMeta& meta, std::uint64_t first,
                  std::span<const std::byte> data, const std::any* survey, ByteOutput& out) {
    const RangePlan& plan = complete_plan(survey);
    if (first == 0) write_range_header(plan, out);
    const Float32Values values(meta.dtype, data);
    write_range_codes(plan, values.values(), out);
}

void decode(const TensorMeta& meta, std::span<const std::uint8_t> payload,
            std::span<std::byte> out) {
    ByteReader r(payload, meta.name, "rangeq payload");
    decode_float32(meta, out, [&](std::span<float> values) {
        read_range_section(r, values);
        r.expect_end();
    });
}

PayloadStats describe(const TensorMeta& meta, std::span<const std::uint8_t> payload) {
    ByteReader r(payload, meta.name, "rangeq payload");
    skip_range_section(r, meta.element_count());
    r.expect_end();
    PayloadStats s;
    s.has_bit_split = true;
    s.value_bits = 8 * std::uint64_t{payload.size()};  // every byte serves the values
    return s;
}

std::uint64_t payload_bound(const RangeParams& params, const TensorMeta& meta,
                            const EncodeOptions& options) {
    return range_section_bound(params.bits, meta.element_count(), options.allow_nonfinite);
}

// --target's ladder: every width the format has.
constexpr std::array<int, 15> kBitsLadder{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

}  // namespace

const CodecDef kRangeqCodec = codec_row<parse_params, encode, payload_bound>({
    .name = "rangeq",
    .id = kCodecRangeq,
    .payload = "rangeq",
    .summary = "N-bit range-based floats: bits=2..16, mantissa=0..23 and eps=E (chosen per "
               "tensor unless given, eps on a ladder from max|x|), round=nearest|truncate",
    .defaults = "bits=8, round=nearest",
    .filter_ok = true,
    .knob = {KnobKind::ladder, "bits", kBitsLadder, true},
    .pieces = &kRangeqPieces,
    .decode = decode,
    .describe = describe,
});

// Codes are bit-packed: a piece must start on a byte, so on a multiple of 8 codes.
const PieceCoding kRangeqPieces{begin_survey, survey_piece, piece_payload_size, encode_piece, 8};

}  // namespace gradcodec
