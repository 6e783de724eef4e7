#include <array>

#include "codec/codec_def.hpp"

namespace gradcodec {

// Several names may share one id when they write the same payload (the threshold selectors).
std::span<const CodecDef* const> all_codecs() {
    static const std::array<const CodecDef*, 9> codecs{
        &kLosslessCodec, &kCastCodec,  &kRangeqCodec, &kTopkCodec, &kThresholdCodec,
        &kDgcCodec,      &kSidcoCodec, &kFftCodec,    &kDctCodec};
    return codecs;
}

}  // namespace gradcodec
