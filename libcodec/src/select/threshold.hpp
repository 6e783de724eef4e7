#pragma once
// The fixed threshold selector: keeps |x| > t.
#include <span>

#include "select/selection.hpp"

namespace gradcodec {

// t >= 0 (NaN-free). NaN elements rank above every number and are kept.
Selection select_above(std::span<const float> x, float t);

}  // namespace gradcodec
