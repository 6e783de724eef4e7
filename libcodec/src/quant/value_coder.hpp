#pragma once
// The value coder of the sparse codecs (threshold and frequency): a self-describing section
// holding `count` binary32 values as f32, f16, bf16 or range-based N-bit floats. The count
// is known to the caller and is not repeated inside the section. Layout: one format byte
// (ValueFormat), then the body: f32 4 bytes per value, f16/bf16 2 bytes per value (all
// little-endian), rangeq a range-float section (format-spec/codec-rangeq.md).
// With EncodeOptions::allow_nonfinite, f32 and rangeq carry NaN/inf bit for bit; f16/bf16
// carry inf exactly and NaN as a quiet NaN of the same sign (the payload bits are lost).
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>

#include "common/byte_io.hpp"
#include "common/spec_params.hpp"
#include "gradcodec/codec.hpp"

namespace gradcodec {

enum class ValueFormat : std::uint8_t { f32 = 1, f16 = 2, bf16 = 3, rangeq = 4 };

struct ValueCoderParams {
    ValueFormat format = ValueFormat::f16;
    int bits = 8;                 // rangeq only
    std::optional<int> mantissa;  // rangeq only: chosen per tensor when absent
    std::optional<double> eps;    // rangeq only: the paper's explicit smallest magnitude
    bool truncate = false;        // rangeq only: round toward zero (the paper)
};

// Reads `values=`, `bits=`, `mantissa=`, `eps=`, `round=` from a sparse codec's spec.
// `fallback` is the codec's default format; `bits=` alone selects rangeq; `default_bits` is
// the rangeq width when `bits=` is absent. bits/mantissa/eps/round with another format are
// Error(usage), as are combinations that make no ladder.
ValueCoderParams parse_value_coder(SpecParams& params, ValueFormat fallback, int default_bits = 8);

// The largest magnitude a float dtype stores without overflow (binary32's for f32 and f64).
float dtype_value_limit(DType dtype);

// Appends the section. Throws Error(bad_input) naming meta.name on values the format cannot
// carry (non-finite without options.allow_nonfinite, f16 overflow). No decoded value exceeds
// `value_limit` in magnitude: rangeq clamps to its ladder value below it, and an f16/bf16
// value that rounds past it is refused, so values taken from a tensor can be stored back in
// the tensor's dtype (pass dtype_value_limit(meta.dtype)).
void encode_values(const ValueCoderParams& params, std::span<const float> values,
                   const TensorMeta& meta, const EncodeOptions& options, ByteWriter& out,
                   float value_limit = std::numeric_limits<float>::max());

// Reads exactly one section of out.size() values. Throws Error(damaged_stream) on damage.
void decode_values(ByteReader& in, std::span<float> out);

// Bits the section spends, for `inspect`: the section's size in bits. Steps the reader over
// the section, checking its sizes (Error(damaged_stream)) but not decoding it.
std::uint64_t value_section_bits(ByteReader& in, std::uint64_t count);

// The most bytes encode_values can append for `count` values: every value an exception when
// non-finite values are allowed (rangeq), the format byte included.
std::uint64_t value_section_bound(const ValueCoderParams& params, std::uint64_t count,
                                  bool allow_nonfinite);

}  // namespace gradcodec
