#pragma once
// Deep Gradient Compression's sampled threshold (Lin et al., ICLR'18): estimate the threshold
// on a strided sample, adapt it, and fall back to an exact top-k among the candidates when
// too many pass (docs/algorithms.md §5).
#include <cstdint>
#include <span>
#include <vector>

#include "common/scratch.hpp"
#include "select/cut.hpp"
#include "select/selection.hpp"

namespace gradcodec {

struct DgcParams {
    double density = 0.01;   // in (0, 1]
    double sample = 0.01;    // sample ratio in (0, 1]; never fewer than ceil(2/density)
    std::uint64_t seed = 0;  // picks the strided sample's start: same seed, same selection
};

inline constexpr int kDgcRounds = 10;

Selection select_dgc(std::span<const float> x, const DgcParams& params);

// The ascending element indices of the threshold's sample, spread over all n elements.
ScratchVector<std::uint64_t> dgc_sample_positions(std::uint64_t n, const DgcParams& params);

// The same positions one at a time, for samples of a group too large to list.
class DgcSampleWalk {
  public:
    DgcSampleWalk(std::uint64_t n, const DgcParams& params);
    std::uint64_t size() const { return samples_; }
    bool done() const { return taken_ == samples_; }
    std::uint64_t position() const { return position_; }  // the current sample, while !done()
    void advance();

  private:
    std::uint64_t samples_ = 0, step_ = 0, carry_ = 0;
    std::uint64_t position_ = 0, remainder_ = 0, taken_ = 0;
};

// DGC over a group of n elements in all, as if they were one tensor: the strided sample
// spans the whole group, and the adapted threshold (or the exact top-k fallback) is one cut
// for every tensor. Weights are ignored: DGC counts elements.
MagnitudeCut group_dgc_cut(const ScorePasses& passes, std::uint64_t n, const DgcParams& params);

}  // namespace gradcodec
