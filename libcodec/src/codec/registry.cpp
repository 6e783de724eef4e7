#include <span>
#include <string>

#include "codec/codec_def.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec {

// Several names may share one id when they write the same payload (the threshold selectors).
std::span<const CodecDef* const> all_codecs() {
    static const CodecDef* const codecs[]{
        &kLosslessCodec,  &kCastCodec,    &kRangeqCodec,  &kTopkCodec,
        &kThresholdCodec, &kDgcCodec,     &kSidcoCodec,   &kFftCodec,
        &kDctCodec,       &kRandomkCodec, &kQsgdCodec,    &kTerngradCodec,
        &kSignCodec,      &kOnebitCodec,  &kNaturalCodec, &kLowrankCodec};
    return codecs;
}

const CodecDef* find_codec(std::string_view name) {
    for (const CodecDef* c : all_codecs())
        if (c->name == name) return c;
    return nullptr;
}

const CodecDef& codec_by_name(std::string_view name) {
    if (const CodecDef* c = find_codec(name)) return *c;
    fail(ErrorKind::usage, "unknown codec '" + std::string(name) + "'; valid codecs: " +
                               codec_names([](const CodecDef&) { return true; }));
}

const CodecDef& codec_by_id(std::uint16_t id, const TensorMeta& meta) {
    for (const CodecDef* c : all_codecs())
        if (c->id == id) return *c;
    fail(ErrorKind::damaged_stream,
         meta.name + ": unknown codec id " + std::to_string(id) + " (this build knows " +
             std::to_string(all_codecs().size()) + " codecs; a newer gradcodec may know it)");
}

void decode_payload(std::uint16_t codec_id, const TensorMeta& meta,
                    std::span<const std::uint8_t> payload, std::span<std::byte> out) {
    const CodecDef& codec = codec_by_id(codec_id, meta);
    if (out.size() != meta.byte_count()) {
        fail(ErrorKind::usage, meta.name + ": output buffer of " + std::to_string(out.size()) +
                                   " bytes, the tensor needs " + std::to_string(meta.byte_count()));
    }
    if (codec.floats_only && !is_float(meta.dtype)) {
        fail(ErrorKind::damaged_stream, meta.name + ": codec '" + std::string(codec.name) +
                                            "' recorded on a non-float tensor");
    }
    codec.decode(meta, payload, out);
}

}  // namespace gradcodec
