#pragma once
// TEMP stub (drop at merge): the threshold branch's select/topk.hpp interface.
#include <cstdint>
#include <span>

#include "select/selection.hpp"

namespace gradcodec {

std::uint64_t topk_count(std::uint64_t n, double density);
Selection select_topk(std::span<const float> x, std::uint64_t k);

}  // namespace gradcodec
