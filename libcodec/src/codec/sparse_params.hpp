#pragma once
// The keys of the threshold-sparsified codecs topk, threshold, dgc and sidco (one payload
// layout, codec id 4: format-spec/codec-sparse.md).
#include <cstdint>
#include <optional>

#include "gradcodec/codec_spec.hpp"
#include "quant/value_coder.hpp"
#include "select/dgc.hpp"
#include "select/sidco.hpp"

namespace gradcodec {

enum class Selector : std::uint8_t { topk = 1, threshold = 2, dgc = 3, sidco = 4 };

struct SparseParams {
    Selector selector = Selector::topk;
    double density = 0.01;               // topk, dgc, sidco
    std::optional<std::uint64_t> count;  // topk: count=K instead of density (capped at n)
    float threshold = 0;                 // threshold: keep |x| > value
    DgcParams dgc;
    SidcoParams sidco;
    ValueCoderParams values;
    bool zstd = true;  // zstd=auto: each section compressed when that is smaller
};

// Throws Error(usage) naming the valid keys or the valid range.
SparseParams parse_sparse_params(const CodecSpec& spec);

}  // namespace gradcodec
