// rangeq: every value as an N-bit range-based float (SuperNeurons Alg. 1, sign-magnitude),
// bit-packed. The payload is one range-float section (format-spec/codec-rangeq.md).
#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "common/byte_io.hpp"
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

std::any compile(const CodecSpec& spec) {
    return parse_params(spec);
}

void encode(const std::any& compiled, const TensorMeta& meta, std::span<const std::byte> data,
            const EncodeOptions& options, ByteOutput& out) {
    const auto& params = std::any_cast<const RangeParams&>(compiled);
    encode_float32(meta, data, [&](std::span<const float> values) {
        write_range_section(params, values, meta, options, out, dtype_value_limit(meta.dtype));
    });
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

std::uint64_t payload_bound(const std::any& compiled, const TensorMeta& meta,
                            const EncodeOptions& options) {
    const auto& params = std::any_cast<const RangeParams&>(compiled);
    return range_section_bound(params.bits, meta.element_count(), options.allow_nonfinite);
}

}  // namespace

const CodecDef kRangeqCodec{
    "rangeq",
    kCodecRangeq,
    "N-bit range-based floats: bits=2..16 (8), mantissa=0..23 (chosen per tensor), "
    "eps=E (ladder from max|x| by default), round=nearest|truncate",
    true,
    compile,
    encode,
    decode,
    describe,
    payload_bound};

}  // namespace gradcodec
