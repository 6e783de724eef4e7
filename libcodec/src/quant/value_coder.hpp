#pragma once
// The value coder of the sparse codecs (threshold and frequency): a self-describing section
// holding `count` binary32 values as f32, f16, bf16 or range-based N-bit floats. The count
// is known to the caller and is not repeated inside the section.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "codec/spec_params.hpp"
#include "common/byte_io.hpp"
#include "gradcodec/codec.hpp"

namespace gradcodec {

enum class ValueFormat : std::uint8_t { f32 = 1, f16 = 2, bf16 = 3, rangeq = 4 };

struct ValueCoderParams {
    ValueFormat format = ValueFormat::f16;
    int bits = 8;                       // rangeq only
    std::optional<int> mantissa;        // rangeq only: chosen per tensor when absent
    std::optional<double> eps;          // rangeq only: the paper's explicit smallest magnitude
    bool truncate = false;              // rangeq only: round toward zero (the paper)
};

// Reads `values=`, `bits=`, `mantissa=`, `eps=`, `round=` from a sparse codec's spec.
// `fallback` is the codec's default format; `bits=` alone selects rangeq.
ValueCoderParams parse_value_coder(SpecParams& params, ValueFormat fallback);

// Appends the section. Throws Error(bad_input) naming meta.name on values the format cannot
// carry (non-finite without options.allow_nonfinite, f16 overflow).
void encode_values(const ValueCoderParams& params, std::span<const float> values,
                   const TensorMeta& meta, const EncodeOptions& options, ByteWriter& out);

// Reads exactly one section of out.size() values. Throws Error(damaged_stream) on damage.
void decode_values(ByteReader& in, std::span<float> out);

// Bits the section spends, for `inspect`: the section's size in bits.
std::uint64_t value_section_bits(ByteReader& in, std::uint64_t count);

}  // namespace gradcodec
