#include "codec/piece_coding.hpp"

namespace gradcodec {

const PieceCoding* piece_coding(const CodecDef& codec) {
    if (&codec == &kCastCodec) return &kCastPieces;
    if (&codec == &kRangeqCodec) return &kRangeqPieces;
    if (&codec == &kTopkCodec) return &kTopkPieces;
    return nullptr;
}

}  // namespace gradcodec
