#pragma once
// TEMP stub (drop at merge): the threshold branch's select/dgc.hpp interface.
#include <cstdint>
#include <span>

#include "select/selection.hpp"

namespace gradcodec {

struct DgcParams {
    double density = 0.01;
    double sample = 0.01;
    std::uint64_t seed = 0;
};

Selection select_dgc(std::span<const float> x, const DgcParams& params);

}  // namespace gradcodec
