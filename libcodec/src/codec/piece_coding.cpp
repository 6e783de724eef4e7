#include "codec/piece_coding.hpp"

namespace gradcodec {

const PieceCoding* piece_coding(const CodecDef& codec) {
    return codec.pieces;
}

}  // namespace gradcodec
