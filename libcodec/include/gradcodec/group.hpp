#pragma once
// Group-scoped selection: the threshold codecs (topk, threshold, dgc, sidco) and the selection
// stage of fft and dct choose across a group of tensors (a training step) as if it were one,
// while each tensor still gets its own payload. A top-k's budget then goes where the
// group's energy is, not an equal share to every tensor.
//
// Two passes, so the group is never held whole: plan_group_cut reads the tensors (through a
// loader, one at a time, a few times) and fixes one cut; a GroupEncoder then encodes each
// tensor with it, in the same order. Memory: one tensor and two 64K-entry histograms.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "gradcodec/codec.hpp"

namespace gradcodec {

// Where a group's selection ends. Scores are |x| for the threshold codecs, the fft codec's
// bin energies (or magnitudes for select=sidco|dgc), the dct codec's |coefficient|.
struct GroupCut {
    std::uint32_t bits = 0;        // the cut's magnitude bit pattern: scores above it are kept
    std::uint64_t tie_budget = 0;  // scores at the cut kept, in group order, while the weight
                                   // spent on them stays below this (UINT64_MAX: all of them)
    float threshold = 0;           // recorded in each payload (the top-k cut, T of |x| > T)
    double target_density = -1;    // recorded in each payload: the group's density target
    std::uint8_t stages = 0;       // sidco: the stages the group's threshold took
    std::uint64_t elements = 0;    // the group's element count
};

// True for the codecs that can select across a group: topk, threshold, dgc, sidco, fft, dct.
bool has_group_scope(const CodecSpec& spec);

// Returns the bytes of tensor `index` of the group (meta.byte_count() of them).
using TensorLoader = std::function<std::vector<std::byte>(std::size_t index)>;

// Pass 1. `tensors` in group order. Exact for topk (and fft/dct with select=topk): keeps
// ceil(density * N) of the group's N values (count=K: K), ties to the lower (tensor, index).
// Throws Error(usage) for a codec without group scope, and what encode_tensor throws on
// bad values. options.threads split each tensor's scoring here and its encode in
// GroupEncoder, as in Codec::encode: the cut and the bytes never depend on the count.
GroupCut plan_group_cut(const CodecSpec& spec, std::span<const TensorMeta> tensors,
                        const TensorLoader& load, const EncodeOptions& options = {});

// Pass 2: encodes the group's tensors, which must come in the order given to the plan.
class GroupEncoder {
  public:
    GroupEncoder(CodecSpec spec, GroupCut cut, EncodeOptions options = {});
    EncodedTensor encode(const TensorMeta& meta, std::span<const std::byte> data);

  private:
    CodecSpec spec_;
    GroupCut cut_;
    EncodeOptions options_;
    std::uint64_t spent_ = 0;  // tie weight used by the tensors encoded so far
};

}  // namespace gradcodec
