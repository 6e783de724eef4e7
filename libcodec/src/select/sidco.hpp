#pragma once
// TEMP stub (drop at merge): the threshold branch's select/sidco.hpp interface, reduced.
#include <span>

#include "select/selection.hpp"

namespace gradcodec {

struct SidcoParams {
    double density = 0.01;
    int stages = 0;
};

Selection select_sidco(std::span<const float> x, const SidcoParams& params);

}  // namespace gradcodec
