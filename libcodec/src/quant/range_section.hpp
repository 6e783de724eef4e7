#pragma once
// The range-float section: a ladder header, an optional list of exactly carried non-finite
// values, then the bit-packed N-bit codes (format-spec/codec-rangeq.md). The `rangeq` codec's
// payload is one such section; the value coder embeds one for `values=rangeq`. The value
// count is known to the caller and is not stored.
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "common/byte_io.hpp"
#include "common/scratch.hpp"
#include "common/spec_params.hpp"
#include "gradcodec/codec.hpp"
#include "quant/magnitude_histogram.hpp"
#include "quant/range_float.hpp"

namespace gradcodec {

// What a spec asks for; unset fields are chosen per tensor.
struct RangeParams {
    int bits = 8;
    std::optional<int> mantissa;
    std::optional<double> eps;
    Rounding rounding = Rounding::nearest;
};

// Reads `bits=`, `mantissa=`, `eps=`, `round=` (each optional; `bits` defaults to
// default_bits) and checks that they make a ladder; Error(usage) otherwise.
RangeParams parse_range_params(SpecParams& params, int default_bits);

// Flag bits of the section header. Unknown bits are damage.
inline constexpr std::uint8_t kRangeFlagTruncate = 0x01;    // encoded with round=truncate
inline constexpr std::uint8_t kRangeFlagExceptions = 0x02;  // a non-finite list follows
inline constexpr std::uint8_t kRangeKnownFlags = 0x03;

struct RangeSectionHeader {
    RangeLadder ladder;
    std::uint8_t flags = 0;
    std::uint64_t exception_count = 0;
};

// Appends a section for `values`. Non-finite values are Error(bad_input) naming meta.name and
// the index unless options.allow_nonfinite. No decoded magnitude will exceed value_limit
// (the tensor dtype's largest finite value, so storing the decoded value cannot overflow).
void write_range_section(const RangeParams& params, std::span<const float> values,
                         const TensorMeta& meta, const EncodeOptions& options, ByteOutput& out,
                         float value_limit = std::numeric_limits<float>::max());

// The same section made in steps, for a tensor that arrives in pieces: survey every piece in
// element order, plan the header from the survey, then write the header and each piece's
// codes. write_range_section is these steps on one piece.
struct RangeException {
    std::uint64_t index;
    std::uint32_t bits;
};

// What the header is decided from, gathered from the values one piece at a time.
struct RangeSurvey {
    MagnitudeSurvey magnitudes;               // max_bits over the finite values only
    ScratchVector<RangeException> nonfinite;  // in element order
    ScratchVector<float> small_values;        // a small tensor's values, non-finite as zero
    std::uint64_t count = 0;                  // values surveyed so far
};

// Adds the next piece of a section of `total` values to `survey`. Non-finite values are
// Error(bad_input) naming meta.name and the value's index in the section unless
// options.allow_nonfinite.
void survey_range_values(const RangeParams& params, const TensorMeta& meta, std::uint64_t total,
                         const EncodeOptions& options, std::span<const float> values,
                         RangeSurvey& survey);

// The header's choices for a section surveyed whole, and how values are made ready for them.
struct RangePlan {
    RangeLadder ladder;
    Rounding rounding = Rounding::nearest;
    // Magnitudes above it are encoded as it, so that no decoded value exceeds the limit.
    float clamp = std::numeric_limits<float>::infinity();
    ScratchVector<RangeException> exceptions;
};

// Errors name meta.name.
RangePlan plan_range_section(const RangeParams& params, const RangeSurvey& survey,
                             const TensorMeta& meta, float value_limit);

// The section's size in bytes for `count` values.
std::uint64_t range_section_size(const RangePlan& plan, std::uint64_t count);

void write_range_header(const RangePlan& plan, ByteOutput& out);

// Appends the codes of `values`. A piece must start on a multiple of 8 values, where the
// packed codes start on a byte.
void write_range_codes(const RangePlan& plan, std::span<const float> values, ByteOutput& out);

// The most bytes write_range_section appends for `count` values of `bits` bits: every value
// an exception when non-finite values are allowed.
std::uint64_t range_section_bound(int bits, std::uint64_t count, bool allow_nonfinite);

// Reads one section of out.size() values; Error(damaged_stream) on any inconsistency.
void read_range_section(ByteReader& in, std::span<float> out);

// Reads the header and steps over the rest of a section of `count` values, checking sizes
// only. Returns the header; the reader ends after the section.
RangeSectionHeader skip_range_section(ByteReader& in, std::uint64_t count);

}  // namespace gradcodec
