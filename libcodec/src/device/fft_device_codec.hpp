#pragma once
// The fft codec's encode and decode with the tensor in device memory (f32).
#include <cstdint>
#include <span>
#include <vector>

#include "codec/frequency_codec.hpp"
#include "gradcodec/codec.hpp"

namespace gradcodec::cuda {

// Appends the payload to `out`.
void encode_fft_on_device(const FrequencyParams& params, const TensorMeta& meta, const float* x,
                          const EncodeOptions& options, ByteOutput& out);
void decode_fft_on_device(const TensorMeta& meta, std::span<const std::uint8_t> payload, float* y);

}  // namespace gradcodec::cuda
