// The GPU entry points: the public device-memory API (gradcodec/cuda.hpp) and the host-memory
// path the execution policy takes (device_dispatch.hpp). Both route a compiled codec to the
// device encoder that implements it.
#include <cuda_runtime.h>

#include <string>

#include "codec/codec_def.hpp"
#include "codec/frequency_codec.hpp"
#include "codec/sparse_params.hpp"
#include "cuda_check.hpp"
#include "device_dispatch.hpp"
#include "fft_device_codec.hpp"
#include "gradcodec/cuda.hpp"
#include "gradcodec/error.hpp"
#include "sparse_device_codec.hpp"

namespace gradcodec::cuda {
namespace {

void require_device() {
    const std::string problem = device_problem();
    if (!problem.empty()) fail(ErrorKind::usage, "execution cuda: " + problem);
}

// `x` is meta.element_count() floats in device memory.
void encode_device_floats(const CodecDef& codec, const std::any& params, const TensorMeta& meta,
                          const float* x, const EncodeOptions& options, ByteOutput& out) {
    if (codec.id == kCodecFft) {
        encode_fft_on_device(std::any_cast<const FrequencyParams&>(params), meta, x, options, out);
    } else {
        encode_sparse_on_device(std::any_cast<const SparseParams&>(params), meta, x, options, out);
    }
}

}  // namespace

bool device_encodes(const CodecDef& codec, const std::any& params, const TensorMeta& meta) {
    if (meta.dtype != DType::f32) return false;
    if (codec.name == "topk" || codec.name == "threshold") return true;
    return codec.id == kCodecFft &&
           std::any_cast<const FrequencyParams&>(params).selector == FrequencySelector::topk;
}

bool device_decodes(std::uint16_t codec_id, const TensorMeta& meta) {
    return codec_id == kCodecFft && meta.dtype == DType::f32;
}

bool device_supports(const CodecSpec& spec, const TensorMeta& meta) {
    const CodecDef& codec = codec_by_name(spec.name);
    return device_encodes(codec, codec.compile(spec), meta);
}

bool device_supports_decode(std::uint16_t codec_id, const TensorMeta& meta) {
    return device_decodes(codec_id, meta);
}

EncodedTensor encode_tensor_on_device(const CodecSpec& spec, const TensorMeta& meta,
                                      const void* device_data, const EncodeOptions& options) {
    const CodecDef& codec = codec_by_name(spec.name);
    const std::any params = codec.compile(spec);
    if (!device_encodes(codec, params, meta)) {
        fail(ErrorKind::usage, meta.name +
                                   ": the CUDA path encodes f32 tensors with fft (select=topk), "
                                   "topk or threshold only, not '" +
                                   spec.to_string() + "' on " +
                                   std::string(dtype_name(meta.dtype)));
    }
    require_device();
    EncodedTensor e{codec.id, spec.to_string(), {}};
    ByteOutput out(e.payload);
    encode_device_floats(codec, params, meta, static_cast<const float*>(device_data), options, out);
    return e;
}

void decode_tensor_on_device(std::uint16_t codec_id, const TensorMeta& meta,
                             std::span<const std::uint8_t> payload, void* device_out) {
    if (!device_decodes(codec_id, meta)) {
        fail(ErrorKind::usage, meta.name + ": the CUDA path decodes f32 tensors of codec fft only");
    }
    require_device();
    decode_fft_on_device(meta, payload, static_cast<float*>(device_out));
}

void encode_host_tensor_on_device(const CodecDef& codec, const std::any& params,
                                  const TensorMeta& meta, std::span<const std::byte> values,
                                  const EncodeOptions& options, ByteOutput& out) {
    require_device();
    DeviceArray<std::byte> device(values.size());
    if (!values.empty()) {
        check(cudaMemcpy(device.data(), values.data(), values.size(), cudaMemcpyHostToDevice),
              "tensor upload");
    }
    encode_device_floats(codec, params, meta, reinterpret_cast<const float*>(device.data()),
                         options, out);
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
