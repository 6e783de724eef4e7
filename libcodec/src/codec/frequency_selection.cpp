#include "codec/frequency_selection.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "select/dgc.hpp"
#include "select/sidco.hpp"
#include "select/topk.hpp"

namespace gradcodec {
namespace {

// Ranking order of the selectors: larger magnitude first, then lower index.
bool ranks_before(std::span<const float> scores, std::uint64_t a, std::uint64_t b) {
    const auto ma = std::bit_cast<std::uint32_t>(scores[a]) & 0x7fffffffu;
    const auto mb = std::bit_cast<std::uint32_t>(scores[b]) & 0x7fffffffu;
    return ma != mb ? ma > mb : a < b;
}

}  // namespace

std::vector<std::uint64_t> select_by_weight(std::span<const float> scores,
                                            const std::function<bool(std::uint64_t)>& is_single,
                                            std::uint64_t single_count, std::uint64_t target) {
    const std::uint64_t size = scores.size();
    const std::uint64_t total = 2 * size - single_count;
    if (target >= total) {
        std::vector<std::uint64_t> all(size);
        for (std::uint64_t i = 0; i < size; ++i) all[i] = i;
        return all;
    }
    // The answer has between ceil(target/2) and ceil(target/2) + single_count coefficients,
    // so one full selection of the upper bound, then a second within it, find it exactly.
    const std::uint64_t least = (target + 1) / 2;
    const std::uint64_t most = std::min(size, least + single_count);
    std::vector<std::uint64_t> wide = select_topk(scores, most).indices;
    if (wide.size() == least) return wide;
    std::vector<float> wide_scores(wide.size());
    for (std::size_t i = 0; i < wide.size(); ++i) wide_scores[i] = scores[wide[i]];
    const std::vector<std::uint64_t> core_local = select_topk(wide_scores, least).indices;

    std::vector<std::uint64_t> kept;
    std::vector<std::uint64_t> rest;  // wide minus core: at most single_count entries
    kept.reserve(most);
    std::uint64_t weight = 0;
    std::size_t c = 0;
    for (std::size_t i = 0; i < wide.size(); ++i) {
        if (c < core_local.size() && core_local[c] == i) {
            kept.push_back(wide[i]);
            weight += is_single(wide[i]) ? 1 : 2;
            ++c;
        } else {
            rest.push_back(wide[i]);
        }
    }
    std::sort(rest.begin(), rest.end(),
              [&](std::uint64_t a, std::uint64_t b) { return ranks_before(scores, a, b); });
    for (std::size_t i = 0; i < rest.size() && weight < target; ++i) {
        kept.push_back(rest[i]);
        weight += is_single(rest[i]) ? 1 : 2;
    }
    std::sort(kept.begin(), kept.end());
    return kept;
}

std::vector<std::uint64_t> select_coefficients(FrequencySelector selector,
                                               std::span<const float> scores, double density) {
    switch (selector) {
        case FrequencySelector::sidco: {
            SidcoParams p;
            p.density = density;
            return select_sidco(scores, p).indices;
        }
        case FrequencySelector::dgc: {
            DgcParams p;
            p.density = density;
            return select_dgc(scores, p).indices;
        }
        case FrequencySelector::topk:
            break;
    }
    return select_topk(scores, topk_count(scores.size(), density)).indices;
}

}  // namespace gradcodec
