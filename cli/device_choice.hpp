#pragma once
// `--device cpu|cuda`: where encode and decode run. cuda needs a build with GRADCODEC_CUDA and
// a usable GPU; otherwise the command stops with Error(usage) (exit 2) before any output.
// On cuda, the tensors the GPU path handles (f32 with fft select=topk, topk or threshold;
// decoding: fft) run there and the rest run on the CPU; the stream format is the same.
#include <cstdint>
#include <span>
#include <string>

#include "gradcodec/gradcodec.hpp"

namespace gradcodec::cli {

enum class Device { cpu, cuda };

// Parses the flag's value and, for cuda, checks that a device is usable.
Device choose_device(const std::string& name);

EncodedTensor encode_on(Device device, const CodecSpec& spec, const TensorMeta& meta,
                        std::span<const std::byte> data, const EncodeOptions& options);
void decode_on(Device device, std::uint16_t codec_id, const TensorMeta& meta,
               std::span<const std::uint8_t> payload, std::span<std::byte> out,
               const DecodeOptions& options = {});

inline constexpr const char* kDeviceHelp =
    "Where to run: cpu (default) or cuda. cuda encodes f32 tensors with fft (select=topk), topk "
    "or threshold and decodes fft on the GPU, everything else on the CPU; without a usable GPU, "
    "or in a build without CUDA, it stops with exit 2 (a CUDA failure mid-run is exit 4)";

}  // namespace gradcodec::cli
