#pragma once
// Codecs whose payload is a prefix followed by each element's code in element order encode a
// tensor piece by piece: a caller streams a large tensor through small buffers instead of
// holding the tensor and its payload whole. For cast the prefix is known before any element
// is read. For rangeq it depends on the whole tensor (the ladder is anchored to its largest
// magnitude), so the pieces are surveyed in a first pass and encoded in a second; the
// payload's size is known after the survey (a record's frame states it first). A top-k's
// payload is written whole by its survey, and its first piece carries it.
#include <any>
#include <cstdint>
#include <span>

#include "codec/codec_def.hpp"

namespace gradcodec {

struct PieceCoding {
    // Null when the codec needs no first pass. Otherwise a survey begins empty, takes every
    // piece in element order, and is complete when it has taken the last; errors on values
    // (non-finite ones) are raised here and name the element's index in the whole tensor.
    std::any (*begin_survey)(const std::any& params, const TensorMeta& meta,
                             const EncodeOptions& options);
    void (*survey)(std::any& survey, const TensorMeta& meta, std::uint64_t first,
                   std::span<const std::byte> data);
    // `survey` is the complete survey, or null for a codec that needs none.
    std::uint64_t (*payload_size)(const std::any& params, const TensorMeta& meta,
                                  const std::any* survey);
    // Appends the payload bytes of elements [first, first + n) of the tensor `meta`, preceded
    // by the payload's prefix when first == 0; `data` holds exactly those n elements. Pieces
    // appended in element order make the bytes of the codec's encode. Errors name an
    // element by its index in the whole tensor.
    void (*encode)(const std::any& params, const TensorMeta& meta, std::uint64_t first,
                   std::span<const std::byte> data, const std::any* survey, ByteOutput& out);
    // Every piece starts on a multiple of this many elements (bit-packed codes start on a
    // byte there).
    std::uint64_t alignment;
};

extern const PieceCoding kCastPieces;
extern const PieceCoding kRangeqPieces;
extern const PieceCoding kTopkPieces;

// The codec's piece coding, or nullptr when it encodes whole tensors only.
const PieceCoding* piece_coding(const CodecDef& codec);

}  // namespace gradcodec
