#pragma once
// Choosing m, the mantissa bits of a range-float ladder, per tensor. More mantissa bits mean
// finer steps but fewer octaves below the top, so small values fall under eps; the best
// trade depends on the tensor's spread of magnitudes.
#include <optional>
#include <span>
#include <vector>

#include "common/scratch.hpp"
#include "quant/magnitude_histogram.hpp"
#include "quant/range_float.hpp"

namespace gradcodec {

// What the ladder is anchored to: the tensor's max |x| (default) or an explicit eps.
struct LadderAnchor {
    float max_abs = 0;          // the largest finite magnitude of the tensor
    std::optional<double> eps;  // the paper's mode when set
};

// The candidates for m: those in min_mantissa(bits)..min(23, bits - 1) whose ladder exists
// for the anchor. Empty only when an explicit eps fits no m.
ScratchVector<int> mantissa_candidates(int bits, const LadderAnchor& anchor);

// Builds the ladder for one m, or nullopt when eps does not fit it.
std::optional<RangeLadder> make_ladder(int bits, int mantissa, const LadderAnchor& anchor,
                                       Rounding rounding);

// The candidate m with the least squared error. Tensors of up to kExactChoiceLimit values
// are encoded with every candidate and measured exactly. Larger ones are estimated from a
// histogram of magnitudes (8 bins per octave), each candidate's error summed bin by bin from
// the bin's centre: `survey`'s when it has one, made from the tensor's values (non-finite
// ones are ignored; `values` may then be empty), or one made here. Strided
// samples were tried first and failed on real gradients: a row-major weight gradient with
// zero columns (an MLP's unused input pixels) aliased with the stride and chose m=0 (rel L2
// 0.20 instead of 0.013).
// Ties go to the smaller m. nullopt only when there is no candidate.
inline constexpr std::size_t kExactChoiceLimit = 4096;
inline bool choice_uses_histogram(std::size_t count) {
    return count > kExactChoiceLimit;
}
std::optional<int> choose_mantissa(int bits, Rounding rounding, const LadderAnchor& anchor,
                                   std::span<const float> values,
                                   const MagnitudeSurvey* survey = nullptr);

}  // namespace gradcodec
