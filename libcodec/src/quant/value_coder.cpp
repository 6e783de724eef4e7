// TEMP value coder stub (drop at merge): f32, f16 and bf16 only, so the sparse codec builds and
// is tested on its own branch. The real implementation (with rangeq) lives on branch rangeq.
// Section: u8 format (1 f32, 2 f16, 3 bf16), then count little-endian values of that width.
#include "quant/value_coder.hpp"

#include <bit>
#include <string>

#include "common/small_float.hpp"

namespace gradcodec {
namespace {

std::uint64_t width(ValueFormat f) {
    return f == ValueFormat::f32 ? 4 : 2;
}

}  // namespace

ValueCoderParams parse_value_coder(SpecParams& params, ValueFormat fallback) {
    ValueCoderParams out;
    const char* names[] = {"", "f32", "f16", "bf16", "rangeq"};
    const std::string v = params.choice("values", names[static_cast<int>(fallback)],
                                        {"f32", "f16", "bf16", "rangeq"});
    if (v == "rangeq" || params.has("bits")) {
        fail(ErrorKind::usage, "values=rangeq is not built in this build (value coder stub)");
    }
    out.format = v == "f32" ? ValueFormat::f32 : v == "f16" ? ValueFormat::f16 : ValueFormat::bf16;
    return out;
}

void encode_values(const ValueCoderParams& params, std::span<const float> values,
                   const TensorMeta& meta, const EncodeOptions&, ByteWriter& out) {
    out.u8(static_cast<std::uint8_t>(params.format));
    if (params.format == ValueFormat::f32) {
        for (const float v : values) out.f32(v);
        return;
    }
    const SmallFloat t = params.format == ValueFormat::f16 ? SmallFloat::f16 : SmallFloat::bf16;
    for (const float v : values) {
        const auto bits = narrow_to(t, v);
        if (!bits) {
            fail(ErrorKind::bad_input, meta.name + ": kept value " + std::to_string(v) +
                                           " is outside the finite range of the value format");
        }
        out.u16(*bits);
    }
}

void decode_values(ByteReader& in, std::span<float> out) {
    const std::uint8_t code = in.u8();
    if (code < 1 || code > 3) in.damaged("unknown value format " + std::to_string(code));
    const auto f = static_cast<ValueFormat>(code);
    in.require(out.size(), width(f), "values");
    const auto bytes = in.bytes(out.size() * width(f));
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (f == ValueFormat::f32) {
            std::uint32_t b = 0;
            for (int j = 0; j < 4; ++j) b |= std::uint32_t{bytes[4 * i + j]} << (8 * j);
            out[i] = std::bit_cast<float>(b);
        } else {
            const auto h = static_cast<std::uint16_t>(bytes[2 * i] | (bytes[2 * i + 1] << 8));
            out[i] = widen_from(f == ValueFormat::f16 ? SmallFloat::f16 : SmallFloat::bf16, h);
        }
    }
}

std::uint64_t value_section_bits(ByteReader& in, std::uint64_t count) {
    const std::uint8_t code = in.u8();
    if (code < 1 || code > 3) in.damaged("unknown value format " + std::to_string(code));
    in.require(count, width(static_cast<ValueFormat>(code)), "values");
    in.bytes(count * width(static_cast<ValueFormat>(code)));
    return 8 * (1 + count * width(static_cast<ValueFormat>(code)));
}

}  // namespace gradcodec
