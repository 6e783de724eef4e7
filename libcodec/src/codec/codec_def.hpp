#pragma once
// One row per codec: how to validate its spec, encode, decode and describe a payload.
// Plain function pointers: a codec is a set of free functions, not a class.
#include <any>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "gradcodec/codec.hpp"

namespace gradcodec {

class ByteOutput;

// Codec ids are format constants (format-spec/FORMAT.md, "Codec ids").
enum CodecId : std::uint16_t {
    kCodecLossless = 1,
    kCodecCast = 2,
    kCodecRangeq = 3,
    kCodecSparse = 4,
    kCodecFft = 5,
    kCodecDct = 6,
    // Format 1.2: the compressors of the field's comparisons.
    kCodecRandomk = 7,
    kCodecLevels = 8,  // qsgd, terngrad
    kCodecSign = 9,    // sign, onebit
    kCodecNatural = 10,
    kCodecLowrank = 11,
};

struct CodecDef {
    std::string_view name;
    std::uint16_t id;
    std::string_view summary;
    bool floats_only;
    // Parses and validates the spec's keys once into the codec's typed parameters; throws
    // Error(usage) naming the valid keys or range. encode and payload_bound take its result.
    std::any (*compile)(const CodecSpec& spec);
    // Appends the payload to `out`, which is the caller's buffer in Codec::encode_into.
    void (*encode)(const std::any& params, const TensorMeta& meta, std::span<const std::byte> data,
                   const EncodeOptions& options, ByteOutput& out);
    void (*decode)(const TensorMeta& meta, std::span<const std::uint8_t> payload,
                   std::span<std::byte> out);
    PayloadStats (*describe)(const TensorMeta& meta, std::span<const std::uint8_t> payload);
    // The most bytes encode can write for this tensor, from the format's worst case (every
    // section at its raw size, every value an exception where non-finite values are allowed).
    std::uint64_t (*payload_bound)(const std::any& params, const TensorMeta& meta,
                                   const EncodeOptions& options);
};

// Each codec's translation unit defines its row.
extern const CodecDef kLosslessCodec;
extern const CodecDef kCastCodec;
extern const CodecDef kRangeqCodec;
extern const CodecDef kTopkCodec;  // topk, threshold, dgc, sidco share kCodecSparse
extern const CodecDef kThresholdCodec;
extern const CodecDef kDgcCodec;
extern const CodecDef kSidcoCodec;
extern const CodecDef kFftCodec;
extern const CodecDef kDctCodec;
extern const CodecDef kRandomkCodec;
extern const CodecDef kQsgdCodec;  // qsgd and terngrad share kCodecLevels
extern const CodecDef kTerngradCodec;
extern const CodecDef kSignCodec;  // sign and onebit share kCodecSign
extern const CodecDef kOnebitCodec;
extern const CodecDef kNaturalCodec;
extern const CodecDef kLowrankCodec;

std::span<const CodecDef* const> all_codecs();

// The codec a spec names; Error(usage) listing the valid names if none.
const CodecDef& codec_by_name(std::string_view name);

// The codec that writes payloads of this id; Error(damaged_stream) naming the tensor if none.
const CodecDef& codec_by_id(std::uint16_t id, const TensorMeta& meta);

// Decodes a payload on the CPU into `out` (exactly meta.byte_count() bytes), checking the
// buffer and the dtype first; Error(damaged_stream) when the payload does not fit the metadata.
void decode_payload(std::uint16_t codec_id, const TensorMeta& meta,
                    std::span<const std::uint8_t> payload, std::span<std::byte> out);

}  // namespace gradcodec
