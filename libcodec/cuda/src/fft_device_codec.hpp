#pragma once
// The fft codec's encode and decode with the tensor in device memory (f32).
#include <cstdint>
#include <span>
#include <vector>

#include "codec/frequency_codec.hpp"
#include "gradcodec/codec.hpp"

namespace gradcodec::cuda {

// The default chunk of codec/fft_codec.cpp (kDefaultChunk there); the gpu tests compare the
// headers both encoders write, so a change there shows up.
inline constexpr std::uint32_t kFftDefaultChunk = 256;

std::vector<std::uint8_t> encode_fft_on_device(const FrequencyParams& params,
                                               const TensorMeta& meta, const float* x,
                                               const EncodeOptions& options);
void decode_fft_on_device(const TensorMeta& meta, std::span<const std::uint8_t> payload, float* y);

}  // namespace gradcodec::cuda
