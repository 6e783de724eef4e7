#pragma once
// Codecs whose payload is a prefix followed by each element's code in element order (cast)
// encode a tensor piece by piece: a caller streams a large tensor through small buffers
// instead of holding the tensor and its payload whole, and the payload's size is known
// before any element is encoded (a record's frame states it first).
#include <any>
#include <cstdint>
#include <span>

#include "codec/codec_def.hpp"

namespace gradcodec {

struct PieceCoding {
    std::uint64_t (*payload_size)(const std::any& params, const TensorMeta& meta);
    // Appends the payload bytes of elements [first, first + n) of the tensor `meta`, preceded
    // by the payload's prefix when first == 0; `data` holds exactly those n elements. Pieces
    // appended in element order make the bytes of the codec's encode. Errors name an
    // element by its index in the whole tensor.
    void (*encode)(const std::any& params, const TensorMeta& meta, std::uint64_t first,
                   std::span<const std::byte> data, ByteOutput& out);
};

extern const PieceCoding kCastPieces;

// The codec's piece coding, or nullptr when its payload depends on the whole tensor.
const PieceCoding* piece_coding(const CodecDef& codec);

}  // namespace gradcodec
