#pragma once
// Encoding one unit: a step's tensors under --scope group (where the codec selects across a
// group), or one tensor. Shared by encode, sweep and simulate, so all three mean the same.
#include <optional>
#include <span>
#include <string>

#include "gradcodec/gradcodec.hpp"
#include "support/dump_groups.hpp"

namespace gradcodec::cli {

enum class Scope { tensor, group };

// "tensor" or "group"; Error(usage) otherwise.
Scope parse_scope(const std::string& text);

// Encodes a unit's tensors in unit order. Under group scope, and when the codec has it, the
// constructor plans the step's cut (reading each tensor through `load` a few times).
class UnitEncoder {
  public:
    UnitEncoder(const CodecSpec& spec, Scope scope, std::span<const UnitTensor> unit,
                const TensorLoader& load, const EncodeOptions& options);
    EncodedTensor encode(const TensorMeta& meta, std::span<const std::byte> data);
    bool grouped() const { return group_.has_value(); }

  private:
    std::optional<Codec> codec_;  // tensor scope: compiled once for the unit
    std::optional<GroupEncoder> group_;
};

// A unit encoded and decoded in memory.
struct UnitMeasure {
    std::uint64_t elements = 0;
    std::uint64_t bytes_in = 0;
    std::uint64_t record_bytes = 0;  // the unit's records, framing included
    ErrorMetrics metrics;
    double encode_seconds = 0;
    double decode_seconds = 0;
};

// Without `decode` only the sizes are measured (metrics stay empty).
UnitMeasure measure_unit(const CodecSpec& spec, Scope scope, std::span<const UnitTensor> unit,
                         const TensorLoader& load, const EncodeOptions& options,
                         bool decode = true);

}  // namespace gradcodec::cli
