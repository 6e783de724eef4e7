#pragma once
// --target KEY=VALUE: the codec's knob (density; rangeq's bits, qsgd's levels or lowrank's rank;
// cast's type) chosen by search so a unit meets a rate or error target. Every candidate is really
// encoded, and error targets are checked by decoding, never estimated.
//   bits=B    the unit's records spend at most B bits per value (framing included)
//   rel_l2=E  the smallest setting whose relative L2 error over the unit is at most E
//   abs=A     every decoded value within A of the original (rangeq, cast), per tensor
//   rel=R     every decoded value within R*|x| of the original (rangeq, cast), per tensor
// A tensor that no setting holds within a pointwise bound is written lossless.
#include <optional>
#include <span>
#include <string>

#include "support/unit_encoding.hpp"

namespace gradcodec::cli {

enum class TargetKind { bits, rel_l2, abs, rel };

struct Target {
    TargetKind kind = TargetKind::bits;
    double value = 0;
    std::string text;  // as given, for messages
};

// Error(usage) on an unknown key or a value out of range.
Target parse_target(const std::string& text);

// Error(usage) when the codec has no knob for the target, or the spec fixes the knob itself.
void check_target_applies(const CodecSpec& spec, const Target& target);

// Pointwise targets are met tensor by tensor, whatever the scope.
bool is_pointwise(const Target& target);

struct TargetChoice {
    CodecSpec spec;
    std::string summary;             // "topk:density=0.0123 (1.998 bits/value, rel_l2 0.53)"
    bool lossless_fallback = false;  // a pointwise bound no setting met: `spec` is lossless
};

// The setting for the unit. Error(usage) naming the unit when no setting meets a rate or
// rel_l2 target; a pointwise bound no setting meets on a tensor gives lossless for it instead.
// `options.threads` threads measure each candidate.
TargetChoice choose_for_target(const CodecSpec& given, const Target& target, Scope scope,
                               std::span<const UnitTensor> unit, const TensorLoader& load,
                               const EncodeOptions& options);

}  // namespace gradcodec::cli
