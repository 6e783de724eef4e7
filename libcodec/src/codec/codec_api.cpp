#include <string>

#include "codec/codec_def.hpp"
#include "common/parallel.hpp"
#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec {
namespace {

const CodecDef& by_name(std::string_view name) {
    for (const CodecDef* c : all_codecs())
        if (c->name == name) return *c;
    std::string list;
    for (const CodecDef* c : all_codecs()) list += (list.empty() ? "" : ", ") + std::string(c->name);
    fail(ErrorKind::usage, "unknown codec '" + std::string(name) + "'; valid codecs: " + list);
}

const CodecDef& by_id(std::uint16_t id, const TensorMeta& meta) {
    for (const CodecDef* c : all_codecs())
        if (c->id == id) return *c;
    fail(ErrorKind::damaged_stream,
         meta.name + ": unknown codec id " + std::to_string(id) + " (this build knows " +
             std::to_string(all_codecs().size()) + " codecs; a newer gradcodec may know it)");
}

}  // namespace

void validate_codec_spec(const CodecSpec& spec) { by_name(spec.name).validate(spec); }

EncodedTensor encode_tensor(const CodecSpec& spec, const TensorMeta& meta,
                            std::span<const std::byte> data, const EncodeOptions& options) {
    const CodecDef& codec = by_name(spec.name);
    if (data.size() != meta.byte_count()) {
        fail(ErrorKind::bad_input, meta.name + ": " + std::to_string(data.size()) +
                                       " bytes given, shape " + shape_to_string(meta.shape) +
                                       " needs " + std::to_string(meta.byte_count()));
    }
    if (codec.floats_only && !is_float(meta.dtype)) {
        fail(ErrorKind::usage, meta.name + ": codec '" + spec.name +
                                   "' applies to float tensors only, not " +
                                   std::string(dtype_name(meta.dtype)));
    }
    const ThreadScope threads(options.threads);
    return {codec.id, spec.to_string(), codec.encode(spec, meta, data, options)};
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

std::string_view codec_name(std::uint16_t codec_id) {
    for (const CodecDef* c : all_codecs())
        if (c->id == codec_id) return c->name;
    return {};
}

}  // namespace gradcodec
