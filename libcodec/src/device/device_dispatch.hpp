#pragma once
// What the api stage asks of the device under Execution::cuda: which compiled codecs and
// payloads the GPU handles, and host-memory encode and decode through it (upload, run,
// download). Built only with GRADCODEC_CUDA.
#include <any>
#include <cstdint>
#include <span>

#include "codec/codec_def.hpp"
#include "common/byte_io.hpp"
#include "gradcodec/codec.hpp"

namespace gradcodec::cuda {

// f32 tensors with fft (select=topk), topk or threshold.
bool device_encodes(const CodecDef& codec, const std::any& params, const TensorMeta& meta);
// fft payloads of f32 tensors.
bool device_decodes(std::uint16_t codec_id, const TensorMeta& meta);

// Appends the payload of host `values` to `out`. Requires device_encodes.
void encode_host_tensor_on_device(const CodecDef& codec, const std::any& params,
                                  const TensorMeta& meta, std::span<const std::byte> values,
                                  const EncodeOptions& options, ByteOutput& out);
// Decodes into host `out` (meta.byte_count() bytes). Requires device_decodes.
void decode_host_tensor_on_device(std::uint16_t codec_id, const TensorMeta& meta,
                                  std::span<const std::uint8_t> payload, std::span<std::byte> out);

}  // namespace gradcodec::cuda
