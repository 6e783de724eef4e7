// The free-function API, kept for one-off calls: each is a throwaway Codec, so there is one
// encode path. Decoding needs no spec: the payload is self-describing given its codec id.
#include <array>
#include <string>

#include "codec/codec_def.hpp"
#include "common/parallel.hpp"
#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec {
namespace {

const CodecDef& by_id(std::uint16_t id, const TensorMeta& meta) {
    for (const CodecDef* c : all_codecs())
        if (c->id == id) return *c;
    fail(ErrorKind::damaged_stream,
         meta.name + ": unknown codec id " + std::to_string(id) + " (this build knows " +
             std::to_string(all_codecs().size()) + " codecs; a newer gradcodec may know it)");
}

}  // namespace

void validate_codec_spec(const CodecSpec& spec) {
    Codec::compile(spec);
}

EncodedTensor encode_tensor(const CodecSpec& spec, const TensorMeta& meta,
                            std::span<const std::byte> data, const EncodeOptions& options) {
    const Codec codec = Codec::compile(spec, options);
    return {codec.id(), codec.spec(), codec.encode(meta, data)};
}

void decode_tensor(std::uint16_t codec_id, const TensorMeta& meta,
                   std::span<const std::uint8_t> payload, std::span<std::byte> out) {
    decode_tensor(codec_id, meta, payload, out, DecodeOptions{});
}

void decode_tensor(std::uint16_t codec_id, const TensorMeta& meta,
                   std::span<const std::uint8_t> payload, std::span<std::byte> out,
                   const DecodeOptions& options) {
    const CodecDef& codec = by_id(codec_id, meta);
    if (out.size() != meta.byte_count()) {
        fail(ErrorKind::usage, meta.name + ": output buffer of " + std::to_string(out.size()) +
                                   " bytes, the tensor needs " + std::to_string(meta.byte_count()));
    }
    if (codec.floats_only && !is_float(meta.dtype)) {
        fail(ErrorKind::damaged_stream, meta.name + ": codec '" + std::string(codec.name) +
                                            "' recorded on a non-float tensor");
    }
    const ThreadScope threads(options.threads);
    codec.decode(meta, payload, out);
}

PayloadStats describe_payload(std::uint16_t codec_id, const TensorMeta& meta,
                              std::span<const std::uint8_t> payload) {
    return by_id(codec_id, meta).describe(meta, payload);
}

std::vector<CodecInfo> list_codecs() {
    std::vector<CodecInfo> out;
    for (const CodecDef* c : all_codecs()) out.push_back({c->name, c->id, c->summary});
    return out;
}

// Named by payload, not by spec: the four threshold selectors write one layout (id 4).
std::string_view codec_name(std::uint16_t codec_id) {
    static constexpr std::array<std::string_view, 7> kPayloadNames{
        "", "lossless", "cast", "rangeq", "sparse", "fft", "dct"};
    return codec_id < kPayloadNames.size() ? kPayloadNames[codec_id] : std::string_view{};
}

}  // namespace gradcodec
