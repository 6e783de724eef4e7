#pragma once
// Error feedback: what a payload leaves out of the values it was encoded from.
#include <cstdint>
#include <span>

#include "gradcodec/codec.hpp"
#include "gradcodec/tensor.hpp"

namespace gradcodec {

// Throws Error(usage), naming meta.name, when any two of the buffers an encode reads and writes
// share a byte: `values`, `out` (the payload or frame) and feedback's residual and decoded
// (empty ones share nothing). An encode that wrote over what it still reads would seal a
// payload that does not decode to the values, or a residual of the wrong values.
void check_separate_buffers(const TensorMeta& meta, std::span<const std::byte> values,
                            std::span<const std::uint8_t> out, const Feedback& feedback = {});

// Writes values - decode(payload) into `residual` (meta.byte_count() bytes, meta.dtype),
// decoding into `residual` itself and subtracting in place. f16 and bf16 subtract in binary32
// and round to nearest even; f32 and f64 subtract in their own precision. Integer tensors
// (lossless only) get zeros.
void write_residual(std::uint16_t codec_id, const TensorMeta& meta,
                    std::span<const std::byte> values, std::span<const std::uint8_t> payload,
                    std::span<std::byte> residual);

// Writes error feedback's outputs for `payload` (either may be empty): decodes once into
// feedback.decoded, or into feedback.residual when only the residual is wanted, and subtracts
// as write_residual does. Integer tensors get a zero residual and their decoded values.
void write_feedback(std::uint16_t codec_id, const TensorMeta& meta,
                    std::span<const std::byte> values, std::span<const std::uint8_t> payload,
                    const Feedback& feedback);

}  // namespace gradcodec
