#pragma once
// The codec API: encode one tensor to a payload, decode a payload back. A payload is
// self-describing given (codec id, dtype, shape): everything the decoder needs, including
// parameters chosen at encode time, travels inside it (format-spec/FORMAT.md, "Codecs").
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gradcodec/codec_spec.hpp"
#include "gradcodec/tensor.hpp"

namespace gradcodec {

struct EncodeOptions {
    bool allow_nonfinite = false;  // carry NaN/inf exactly instead of refusing them
    // Threads the call may use to split one large tensor (1: the calling thread only). The
    // payload bytes never depend on it. No thread outlives the call.
    unsigned threads = 1;
};

struct DecodeOptions {
    unsigned threads = 1;  // as EncodeOptions::threads; the decoded values never depend on it
};

struct EncodedTensor {
    std::uint16_t codec_id = 0;
    std::string spec;  // the spec as validated, recorded for people and `inspect`
    std::vector<std::uint8_t> payload;
};

// How a payload's bits split, for `inspect`. Codecs without positions report only values.
struct PayloadStats {
    bool has_bit_split = false;
    std::uint64_t position_bits = 0;
    std::uint64_t value_bits = 0;
    double target_density = -1.0;  // < 0 when the codec has no density target
    // Scalars the payload carries, for codecs that keep a subset (sparse: kept values;
    // fft/dct: kept real scalars of the spectrum). Dense codecs leave has_carried false.
    bool has_carried = false;
    std::uint64_t carried = 0;
};

struct CodecInfo {
    std::string_view name;
    std::uint16_t id;
    std::string_view summary;
};

// Throws Error(usage) naming the valid names, keys or values.
void validate_codec_spec(const CodecSpec& spec);

EncodedTensor encode_tensor(const CodecSpec& spec, const TensorMeta& meta,
                            std::span<const std::byte> data, const EncodeOptions& options = {});

// `out` must hold exactly meta.byte_count() bytes. Throws Error(damaged_stream) when the
// payload is inconsistent with the metadata.
void decode_tensor(std::uint16_t codec_id, const TensorMeta& meta,
                   std::span<const std::uint8_t> payload, std::span<std::byte> out);
void decode_tensor(std::uint16_t codec_id, const TensorMeta& meta,
                   std::span<const std::uint8_t> payload, std::span<std::byte> out,
                   const DecodeOptions& options);

PayloadStats describe_payload(std::uint16_t codec_id, const TensorMeta& meta,
                              std::span<const std::uint8_t> payload);

std::vector<CodecInfo> list_codecs();
std::string_view codec_name(std::uint16_t codec_id);  // "" when unknown

}  // namespace gradcodec
