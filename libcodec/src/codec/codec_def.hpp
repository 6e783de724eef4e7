#pragma once
// One row per codec: what it is called and what it offers (help, defaults, --target's knob,
// HDF5 filter use), and how to validate its spec, encode, decode and describe a payload.
// Plain function pointers: a codec is a set of free functions, not a class.
#include <any>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "gradcodec/codec.hpp"

namespace gradcodec {

class ByteOutput;
struct PieceCoding;

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

// How a codec selects across a group of tensors under --scope group (group_api.cpp), if it does.
enum class GroupFamily : std::uint8_t { none, sparse, fft, dct };

// A codec's row: what the registry tells every front end (CodecCatalogEntry's fields, so a
// codec is declared in one place), then its functions. Rows are written with designated
// initializers and made by codec_row, which supplies the std::any glue.
struct CodecDef {
    std::string_view name{};
    std::uint16_t id = 0;
    std::string_view payload{};   // the payload layout's name; rows sharing an id share it
    std::string_view summary{};   // one line: what it does and its keys
    std::string_view defaults{};  // what the bare name means, "density=0.01, values=f16": the
                                  // keys NAME alone takes, each as NAME:key=value would give it
    bool floats_only = true;
    bool filter_ok = false;   // encodes any run of values alone: usable per HDF5 chunk
    bool draws_seed = false;  // without seed= every encode draws a fresh one
    GroupFamily group = GroupFamily::none;
    CodecKnob knob{};  // what --target turns
    // How it encodes a tensor piece by piece (codec/piece_coding.hpp); null: whole tensors only.
    const PieceCoding* pieces = nullptr;
    // Parses and validates the spec's keys once into the codec's typed parameters; throws
    // Error(usage) naming the valid keys or range. encode and payload_bound take its result.
    std::any (*compile)(const CodecSpec& spec) = nullptr;
    // Appends the payload to `out`, which is the caller's buffer in Codec::encode_into.
    void (*encode)(const std::any& params, const TensorMeta& meta, std::span<const std::byte> data,
                   const EncodeOptions& options, ByteOutput& out) = nullptr;
    void (*decode)(const TensorMeta& meta, std::span<const std::uint8_t> payload,
                   std::span<std::byte> out) = nullptr;
    PayloadStats (*describe)(const TensorMeta& meta,
                             std::span<const std::uint8_t> payload) = nullptr;
    // The most bytes encode can write for this tensor, from the format's worst case (every
    // section at its raw size, every value an exception where non-finite values are allowed).
    std::uint64_t (*payload_bound)(const std::any& params, const TensorMeta& meta,
                                   const EncodeOptions& options) = nullptr;
};

namespace codec_glue {

// The parameters type a codec's typed function takes first.
template <class F>
struct Params;
template <class R, class P, class... A>
struct Params<R (*)(const P&, A...)> {
    using type = P;
};

template <auto Parse>
std::any compile(const CodecSpec& spec) {
    return Parse(spec);
}

template <auto Encode>
void encode(const std::any& params, const TensorMeta& meta, std::span<const std::byte> data,
            const EncodeOptions& options, ByteOutput& out) {
    using P = typename Params<decltype(Encode)>::type;
    Encode(std::any_cast<const P&>(params), meta, data, options, out);
}

template <auto Bound>
std::uint64_t payload_bound(const std::any& params, const TensorMeta& meta,
                            const EncodeOptions& options) {
    using P = typename Params<decltype(Bound)>::type;
    return Bound(std::any_cast<const P&>(params), meta, options);
}

}  // namespace codec_glue

// A codec's row from its typed functions: `Parse(spec)` returns the parameters P that
// `Encode(const P&, meta, data, options, out)` and `Bound(const P&, meta, options)` take.
// The glue between them and the row's std::any is written once, here.
template <auto Parse, auto Encode, auto Bound>
constexpr CodecDef codec_row(CodecDef row) {
    using P = decltype(Parse(std::declval<const CodecSpec&>()));
    static_assert(std::is_same_v<P, typename codec_glue::Params<decltype(Encode)>::type>,
                  "encode takes the parameters parse returns");
    static_assert(std::is_same_v<P, typename codec_glue::Params<decltype(Bound)>::type>,
                  "payload_bound takes the parameters parse returns");
    row.compile = codec_glue::compile<Parse>;
    row.encode = codec_glue::encode<Encode>;
    row.payload_bound = codec_glue::payload_bound<Bound>;
    return row;
}

// Each codec's translation unit defines its row (declared here, so that it is one object
// the registry lists).
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

// The registry (registry.cpp): every codec's row, in the order front ends list them.
std::span<const CodecDef* const> all_codecs();

// The codec a spec names, or null if no row has that name.
const CodecDef* find_codec(std::string_view name);

// The codec a spec names; Error(usage) listing the valid names if none.
const CodecDef& codec_by_name(std::string_view name);

// The names of the rows `keep(row)` accepts, in registry order, joined by ", ": the lists that
// error messages give of the codecs that would do.
template <class Keep>
std::string codec_names(Keep&& keep) {
    std::string list;
    for (const CodecDef* c : all_codecs())
        if (keep(*c)) list += (list.empty() ? "" : ", ") + std::string(c->name);
    return list;
}

// The codec that writes payloads of this id; Error(damaged_stream) naming the tensor if none.
const CodecDef& codec_by_id(std::uint16_t id, const TensorMeta& meta);

// Decodes a payload on the CPU into `out` (exactly meta.byte_count() bytes), checking the
// buffer and the dtype first; Error(damaged_stream) when the payload does not fit the metadata.
void decode_payload(std::uint16_t codec_id, const TensorMeta& meta,
                    std::span<const std::uint8_t> payload, std::span<std::byte> out);

}  // namespace gradcodec
