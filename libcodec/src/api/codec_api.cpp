// The free-function API, kept for one-off calls: each is a throwaway Codec, so there is one
// encode path. Decoding needs no spec: the payload is self-describing given its codec id.
#include <string>

#include "api/execution.hpp"
#include "codec/codec_def.hpp"
#include "common/parallel.hpp"
#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"

#if defined(GRADCODEC_HAVE_CUDA)
#include "device/device_dispatch.hpp"
#endif

namespace gradcodec {

void validate_codec_spec(const CodecSpec& spec) {
    Codec::compile(spec);
}

EncodedTensor encode_tensor(const CodecSpec& spec, const TensorMeta& meta,
                            std::span<const std::byte> data, const EncodeOptions& options) {
    return encode_tensor(Codec::compile(spec, options), meta, data);
}

EncodedTensor encode_tensor(const Codec& codec, const TensorMeta& meta,
                            std::span<const std::byte> data) {
    return {codec.id(), codec.spec(), codec.encode(meta, data)};
}

void decode_tensor(std::uint16_t codec_id, const TensorMeta& meta,
                   std::span<const std::uint8_t> payload, std::span<std::byte> out) {
    decode_tensor(codec_id, meta, payload, out, DecodeOptions{});
}

void decode_tensor(std::uint16_t codec_id, const TensorMeta& meta,
                   std::span<const std::uint8_t> payload, std::span<std::byte> out,
                   const DecodeOptions& options) {
    require_execution(options.execution);
    const ThreadScope threads(options.threads);
#if defined(GRADCODEC_HAVE_CUDA)
    if (options.execution == Execution::cuda && cuda::device_decodes(codec_id, meta)) {
        cuda::decode_host_tensor_on_device(codec_id, meta, payload, out);
        return;
    }
#endif
    decode_payload(codec_id, meta, payload, out);
}

PayloadStats describe_payload(std::uint16_t codec_id, const TensorMeta& meta,
                              std::span<const std::uint8_t> payload) {
    return codec_by_id(codec_id, meta).describe(meta, payload);
}

std::vector<CodecInfo> list_codecs() {
    std::vector<CodecInfo> out;
    for (const CodecDef* c : all_codecs()) out.push_back({c->name, c->id, c->summary});
    return out;
}

std::vector<CodecCatalogEntry> codec_catalog() {
    std::vector<CodecCatalogEntry> out;
    for (const CodecDef* c : all_codecs()) {
        out.push_back({c->name, c->id, c->payload, c->summary, c->defaults, c->floats_only,
                       c->filter_ok, c->draws_seed, c->knob});
    }
    return out;
}

// Named by payload, not by spec: the four threshold selectors write one layout (id 4).
std::string_view codec_name(std::uint16_t codec_id) {
    for (const CodecDef* c : all_codecs())
        if (c->id == codec_id) return c->payload;
    return {};
}

}  // namespace gradcodec
