#pragma once
// Deep Gradient Compression's sampled threshold (Lin et al., ICLR'18): estimate the threshold
// on a strided sample, adapt it, and fall back to an exact top-k among the candidates when
// too many pass (docs/algorithms.md §5).
#include <cstdint>
#include <span>
#include <vector>

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
std::vector<std::uint64_t> dgc_sample_positions(std::uint64_t n, const DgcParams& params);

}  // namespace gradcodec
