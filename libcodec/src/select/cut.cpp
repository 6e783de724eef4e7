#include "select/cut.hpp"

#include <algorithm>
#include <bit>

#include "common/scratch.hpp"
#include "select/magnitude_scan.hpp"

namespace gradcodec {

Selection select_with_cut(std::span<const float> x, const MagnitudeCut& cut,
                          const ElementWeights& weights, std::uint64_t& spent) {
    Selection s;
    s.threshold = std::bit_cast<float>(cut.bits);
    if (cut.tie_budget == kKeepAllTies) {
        collect_at_least(x, cut.bits, x.size(), s.indices);
        return s;
    }
    if (cut.bits == 0x7fffffffu && cut.tie_budget == 0) return s;
    // Above the cut every element stays; at the cut only while the budget lasts, so the
    // candidates (pattern >= bits) are filtered in index order.
    ScratchVector<std::uint64_t> candidates;
    collect_at_least(x, cut.bits, x.size(), candidates);
    std::uint64_t used = 0;
    std::size_t single = 0;
    s.indices.reserve(candidates.size());
    for (const std::uint64_t i : candidates) {
        if (magnitude_bits(x[i]) > cut.bits) {
            s.indices.push_back(i);
            continue;
        }
        if (used >= cut.tie_budget) continue;
        std::uint64_t weight = 1;
        if (weights.doubled) {
            while (single < weights.singles.size() && weights.singles[single] < i) ++single;
            weight = single < weights.singles.size() && weights.singles[single] == i ? 1 : 2;
        }
        used += weight;
        s.indices.push_back(i);
    }
    spent += used;
    return s;
}

}  // namespace gradcodec
