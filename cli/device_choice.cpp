#include "device_choice.hpp"

#if defined(GRADCODEC_HAVE_CUDA)
#include "gradcodec/cuda.hpp"
#endif

namespace gradcodec::cli {

Device choose_device(const std::string& name) {
    if (name == "cpu") return Device::cpu;
    if (name != "cuda")
        fail(ErrorKind::usage, "--device " + name + ": valid devices are cpu, cuda");
#if defined(GRADCODEC_HAVE_CUDA)
    const std::string problem = cuda::device_problem();
    if (!problem.empty()) fail(ErrorKind::usage, "--device cuda: " + problem);
    return Device::cuda;
#else
    fail(ErrorKind::usage,
         "--device cuda: this gradcodec was built without CUDA (GRADCODEC_CUDA=OFF)");
#endif
}

EncodedTensor encode_on(Device device, const CodecSpec& spec, const TensorMeta& meta,
                        std::span<const std::byte> data, const EncodeOptions& options) {
#if defined(GRADCODEC_HAVE_CUDA)
    if (device == Device::cuda && cuda::device_supports(spec, meta)) {
        return cuda::encode_host_tensor_on_device(spec, meta, data, options);
    }
#else
    (void)device;
#endif
    return encode_tensor(spec, meta, data, options);
}

void decode_on(Device device, std::uint16_t codec_id, const TensorMeta& meta,
               std::span<const std::uint8_t> payload, std::span<std::byte> out,
               const DecodeOptions& options) {
#if defined(GRADCODEC_HAVE_CUDA)
    if (device == Device::cuda && cuda::device_supports_decode(codec_id, meta)) {
        cuda::decode_host_tensor_on_device(codec_id, meta, payload, out);
        return;
    }
#else
    (void)device;
#endif
    decode_tensor(codec_id, meta, payload, out, options);
}

}  // namespace gradcodec::cli
