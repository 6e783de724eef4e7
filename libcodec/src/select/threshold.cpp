#include "select/threshold.hpp"

#include "select/magnitude_scan.hpp"

namespace gradcodec {

Selection select_above(std::span<const float> x, float t) {
    Selection s;
    s.threshold = t;
    const std::uint32_t lo = bits_above(t);
    collect_at_least(x, lo, x.size(), s.indices);
    return s;
}

}  // namespace gradcodec
