// The public GPU entry points (gradcodec/cuda.hpp): device checks, spec routing.
#include <cuda_runtime.h>

#include <string>

#include "codec/codec_def.hpp"
#include "codec/sparse_params.hpp"
#include "cuda_check.hpp"
#include "fft_device_codec.hpp"
#include "gradcodec/cuda.hpp"
#include "gradcodec/error.hpp"
#include "sparse_device_codec.hpp"

namespace gradcodec::cuda {
namespace {

void require_device() {
    const std::string problem = device_problem();
    if (!problem.empty()) fail(ErrorKind::usage, "--device cuda: " + problem);
}

}  // namespace

bool device_supports(const CodecSpec& spec, const TensorMeta& meta) {
    if (meta.dtype != DType::f32) return false;
    if (spec.name == "topk" || spec.name == "threshold") return true;
    if (spec.name != "fft") return false;
    return parse_frequency_params(spec, kFftDefaultChunk).selector == FrequencySelector::topk;
}

bool device_supports_decode(std::uint16_t codec_id, const TensorMeta& meta) {
    return codec_id == kCodecFft && meta.dtype == DType::f32;
}

EncodedTensor encode_tensor_on_device(const CodecSpec& spec, const TensorMeta& meta,
                                      const void* device_data, const EncodeOptions& options) {
    validate_codec_spec(spec);
    if (!device_supports(spec, meta)) {
        fail(ErrorKind::usage, meta.name +
                                   ": the CUDA path encodes f32 tensors with fft "
                                   "(select=topk) only, not '" +
                                   spec.to_string() + "' on " +
                                   std::string(dtype_name(meta.dtype)));
    }
    require_device();
    const auto* x = static_cast<const float*>(device_data);
    if (spec.name != "fft") {
        return {kCodecSparse, spec.to_string(),
                encode_sparse_on_device(parse_sparse_params(spec), meta, x, options)};
    }
    const FrequencyParams params = parse_frequency_params(spec, kFftDefaultChunk);
    return {kCodecFft, spec.to_string(), encode_fft_on_device(params, meta, x, options)};
}

void decode_tensor_on_device(std::uint16_t codec_id, const TensorMeta& meta,
                             std::span<const std::uint8_t> payload, void* device_out) {
    if (!device_supports_decode(codec_id, meta)) {
        fail(ErrorKind::usage, meta.name + ": the CUDA path decodes f32 tensors of codec fft only");
    }
    require_device();
    decode_fft_on_device(meta, payload, static_cast<float*>(device_out));
}

EncodedTensor encode_host_tensor_on_device(const CodecSpec& spec, const TensorMeta& meta,
                                           std::span<const std::byte> data,
                                           const EncodeOptions& options) {
    if (data.size() != meta.byte_count()) {
        fail(ErrorKind::bad_input, meta.name + ": " + std::to_string(data.size()) +
                                       " bytes given, the shape needs " +
                                       std::to_string(meta.byte_count()));
    }
    require_device();
    DeviceArray<std::byte> device(data.size());
    if (!data.empty()) {
        check(cudaMemcpy(device.data(), data.data(), data.size(), cudaMemcpyHostToDevice),
              "tensor upload");
    }
    return encode_tensor_on_device(spec, meta, device.data(), options);
}

void decode_host_tensor_on_device(std::uint16_t codec_id, const TensorMeta& meta,
                                  std::span<const std::uint8_t> payload, std::span<std::byte> out) {
    if (out.size() != meta.byte_count()) {
        fail(ErrorKind::usage, meta.name + ": output buffer of " + std::to_string(out.size()) +
                                   " bytes, the tensor needs " + std::to_string(meta.byte_count()));
    }
    require_device();
    DeviceArray<std::byte> device(out.size());
    decode_tensor_on_device(codec_id, meta, payload, device.data());
    if (!out.empty()) {
        check(cudaMemcpy(out.data(), device.data(), out.size(), cudaMemcpyDeviceToHost),
              "tensor download");
    }
}

}  // namespace gradcodec::cuda
