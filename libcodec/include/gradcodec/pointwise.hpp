#pragma once
// Pointwise error bounds, like zfp's -a and SZ's ABS/REL modes: every decoded value within
// A of the original (abs), or within R·|x| of it (rel; so zeros stay exact). The setting is
// chosen by encoding and decoding the tensor, so a bound it accepts is met, not estimated.
#include <cstddef>
#include <optional>
#include <span>

#include "gradcodec/codec.hpp"

namespace gradcodec {

enum class PointwiseKind { abs, rel };

struct PointwiseBound {
    PointwiseKind kind = PointwiseKind::abs;
    double value = 0;  // > 0
};

// max over elements of |y - x| / allowed(x): at most 1 when the bound holds; +inf when an
// element errs where no error is allowed (rel at x = 0) or a value is not finite.
double pointwise_excess(const PointwiseBound& bound, DType dtype,
                        std::span<const std::byte> original, std::span<const std::byte> decoded);

// The cheapest setting of `spec`'s codec that meets the bound on this tensor: rangeq with
// the fewest bits (its per-tensor mantissa first, then every mantissa; keys the spec gives
// stay fixed), cast to bf16, then f16. Error(usage) naming the tensor and the closest miss
// when no setting can, and for codecs other than rangeq and cast.
CodecSpec choose_pointwise(const CodecSpec& spec, const PointwiseBound& bound,
                           const TensorMeta& meta, std::span<const std::byte> data,
                           const EncodeOptions& options = {});

// As choose_pointwise, but nullopt where no setting meets the bound on this tensor, for a
// caller that stores such a tensor another way (the CLI writes it lossless).
std::optional<CodecSpec> find_pointwise(const CodecSpec& spec, const PointwiseBound& bound,
                                        const TensorMeta& meta, std::span<const std::byte> data,
                                        const EncodeOptions& options = {});

}  // namespace gradcodec
