#pragma once
// Choosing m, the mantissa bits of a range-float ladder, per tensor. More mantissa bits mean
// finer steps but fewer octaves below the top, so small values fall under eps; the best
// trade depends on the tensor's spread of magnitudes.
#include <optional>
#include <span>
#include <vector>

#include "quant/range_float.hpp"

namespace gradcodec {

// What the ladder is anchored to: the tensor's max |x| (default) or an explicit eps.
struct LadderAnchor {
    float max_abs = 0;          // the largest finite magnitude of the tensor
    std::optional<double> eps;  // the paper's mode when set
};

// The candidates for m: those in min_mantissa(bits)..min(23, bits - 1) whose ladder exists
// for the anchor. Empty only when an explicit eps fits no m.
std::vector<int> mantissa_candidates(int bits, const LadderAnchor& anchor);

// Builds the ladder for one m, or nullopt when eps does not fit it.
std::optional<RangeLadder> make_ladder(int bits, int mantissa, const LadderAnchor& anchor,
                                       Rounding rounding);

// The candidate m with the least squared error on a deterministic strided sample of at most
// kMantissaSample finite values (all of them for small tensors), measured by actually
// encoding and decoding the sample; ties go to the smaller m. Throws nothing; returns
// nullopt only when there is no candidate.
inline constexpr std::size_t kMantissaSample = 4096;
std::optional<int> choose_mantissa(int bits, Rounding rounding, const LadderAnchor& anchor,
                                   std::span<const float> values);

}  // namespace gradcodec
