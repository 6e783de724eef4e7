#include "quant/value_coder.hpp"

#include <bit>
#include <cmath>
#include <string>

#include "common/float_values.hpp"
#include "common/small_float.hpp"
#include "quant/range_section.hpp"

namespace gradcodec {
namespace {

const char* format_name(ValueFormat f) {
    switch (f) {
        case ValueFormat::f32:
            return "f32";
        case ValueFormat::f16:
            return "f16";
        case ValueFormat::bf16:
            return "bf16";
        case ValueFormat::rangeq:
            return "rangeq";
    }
    return "?";
}

ValueFormat format_from_name(const std::string& name) {
    if (name == "f32") return ValueFormat::f32;
    if (name == "f16") return ValueFormat::f16;
    if (name == "bf16") return ValueFormat::bf16;
    return ValueFormat::rangeq;
}

void encode_halves(SmallFloat type, std::span<const float> values, const TensorMeta& meta,
                   float value_limit, std::uint8_t* out) {
    const std::size_t i = narrow_floats(type, values, out);
    if (i != values.size()) {
        fail(ErrorKind::bad_input,
             meta.name + ": value " + std::to_string(i) + " = " + std::to_string(values[i]) +
                 " is outside the finite range of " + (type == SmallFloat::f16 ? "f16" : "bf16") +
                 " (|x| <= " + std::to_string(small_float_max(type)) +
                 "); use values=f32 or rangeq");
    }
    if (small_float_max(type) <= static_cast<double>(value_limit)) return;
    // bf16 values of an f16 tensor: the largest f16 values round up past the f16 range.
    for (std::size_t j = 0; j < values.size(); ++j) {
        const auto h = static_cast<std::uint16_t>(out[2 * j] | (out[2 * j + 1] << 8));
        const float back = widen_from(type, h);
        if (std::isfinite(back) && std::fabs(back) > value_limit) {
            fail(ErrorKind::bad_input,
                 meta.name + ": value " + std::to_string(j) + " = " + std::to_string(values[j]) +
                     " rounds to " + std::to_string(back) + " in " +
                     (type == SmallFloat::f16 ? "f16" : "bf16") +
                     ", beyond the largest value of the tensor's dtype (" +
                     std::to_string(value_limit) + "); use values=f32 or f16");
        }
    }
}

// Reads the format tag and checks the body's size; leaves the reader at the body.
ValueFormat read_tag(ByteReader& in) {
    const std::uint8_t tag = in.u8();
    if (tag < static_cast<std::uint8_t>(ValueFormat::f32) ||
        tag > static_cast<std::uint8_t>(ValueFormat::rangeq)) {
        in.damaged("unknown value format " + std::to_string(tag) +
                   " (1 = f32, 2 = f16, 3 = bf16, 4 = rangeq)");
    }
    return static_cast<ValueFormat>(tag);
}

}  // namespace

float dtype_value_limit(DType dtype) {
    switch (dtype) {
        case DType::f16:
            return static_cast<float>(small_float_max(SmallFloat::f16));
        case DType::bf16:
            return static_cast<float>(small_float_max(SmallFloat::bf16));
        default:
            return std::numeric_limits<float>::max();
    }
}

ValueCoderParams parse_value_coder(SpecParams& params, ValueFormat fallback, int default_bits) {
    const bool bits_given = params.has("bits");
    const bool values_given = params.has("values");
    const std::string fallback_name =
        bits_given && !values_given ? "rangeq" : format_name(fallback);
    ValueCoderParams out;
    out.format =
        format_from_name(params.choice("values", fallback_name, {"f32", "f16", "bf16", "rangeq"}));
    if (out.format == ValueFormat::rangeq) {
        const RangeParams r = parse_range_params(params, default_bits);
        out.bits = r.bits;
        out.mantissa = r.mantissa;
        out.eps = r.eps;
        out.truncate = r.rounding == Rounding::truncate;
        return out;
    }
    for (const char* key : {"bits", "mantissa", "eps", "round"}) {
        if (params.has(key)) {
            params.invalid(key, std::string("no value with values=") + format_name(out.format) +
                                    ": bits, mantissa, eps and round apply to values=rangeq");
        }
    }
    return out;
}

void encode_values(const ValueCoderParams& params, std::span<const float> values,
                   const TensorMeta& meta, const EncodeOptions& options, ByteWriter& out,
                   float value_limit) {
    out.u8(static_cast<std::uint8_t>(params.format));
    if (params.format == ValueFormat::rangeq) {
        const RangeParams r{params.bits, params.mantissa, params.eps,
                            params.truncate ? Rounding::truncate : Rounding::nearest};
        write_range_section(r, values, meta, options, out.sink(), value_limit);
        return;
    }
    if (!options.allow_nonfinite) require_finite(meta, values);
    if (params.format == ValueFormat::f32) {
        std::uint8_t* bytes = out.sink().extend(4 * values.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            const auto b = std::bit_cast<std::uint32_t>(values[i]);
            for (int k = 0; k < 4; ++k) bytes[4 * i + k] = static_cast<std::uint8_t>(b >> (8 * k));
        }
        return;
    }
    encode_halves(params.format == ValueFormat::f16 ? SmallFloat::f16 : SmallFloat::bf16, values,
                  meta, value_limit, out.sink().extend(2 * values.size()));
}

void decode_values(ByteReader& in, std::span<float> out) {
    const ValueFormat format = read_tag(in);
    const std::size_t n = out.size();
    switch (format) {
        case ValueFormat::f32: {
            in.require(n, 4, "f32 values");
            const auto b = in.bytes(4 * std::uint64_t{n});
            for (std::size_t i = 0; i < n; ++i) {
                out[i] = std::bit_cast<float>(
                    std::uint32_t{b[4 * i]} | std::uint32_t{b[4 * i + 1]} << 8 |
                    std::uint32_t{b[4 * i + 2]} << 16 | std::uint32_t{b[4 * i + 3]} << 24);
            }
            return;
        }
        case ValueFormat::f16:
        case ValueFormat::bf16: {
            const SmallFloat type = format == ValueFormat::f16 ? SmallFloat::f16 : SmallFloat::bf16;
            in.require(n, 2, "half values");
            const auto b = in.bytes(2 * std::uint64_t{n});
            widen_halves(type, b.data(), out.first(n));
            return;
        }
        case ValueFormat::rangeq:
            read_range_section(in, out);
            return;
    }
}

std::uint64_t value_section_bits(ByteReader& in, std::uint64_t count) {
    const std::uint64_t start = in.position();
    switch (read_tag(in)) {
        case ValueFormat::f32:
            in.require(count, 4, "f32 values");
            in.bytes(4 * count);
            break;
        case ValueFormat::f16:
        case ValueFormat::bf16:
            in.require(count, 2, "half values");
            in.bytes(2 * count);
            break;
        case ValueFormat::rangeq:
            skip_range_section(in, count);
            break;
    }
    return 8 * (in.position() - start);
}

}  // namespace gradcodec
