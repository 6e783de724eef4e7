#include "codec/frequency_selection.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "common/parallel.hpp"
#include "common/scratch.hpp"
#include "select/dgc.hpp"
#include "select/sidco.hpp"
#include "select/topk.hpp"
#include "select/weighted_prefix.hpp"

namespace gradcodec {

ScratchVector<std::uint64_t> select_by_weight(std::span<const float> scores,
                                              std::span<const std::uint64_t> singles,
                                              std::uint64_t target) {
    const std::uint64_t size = scores.size();
    const std::uint64_t total = 2 * size - singles.size();
    if (target >= total) {
        ScratchVector<std::uint64_t> all(size);
        for (std::uint64_t i = 0; i < size; ++i) all[i] = i;
        return all;
    }
    if (target == 0) return {};
    if (codec_threads() <= 1) return weighted_prefix(scores, singles, target);
    // On several threads, two top-k selections, whose scans the threads share.
    // The answer has between ceil(target/2) and ceil(target/2) + |singles| coefficients, so
    // one selection over everything of the upper bound, then one within it, find it exactly.
    const std::uint64_t least = (target + 1) / 2;
    const std::uint64_t most = std::min(size, least + singles.size());
    Selection wide_selection = select_topk(scores, most);
    ScratchVector<std::uint64_t> wide = std::move(wide_selection.indices);
    if (wide.size() == least) return wide;
    // The selection usually carries the scores it kept; else gather them.
    ScratchVector<float> wide_scores = std::move(wide_selection.values);
    if (wide_scores.size() != wide.size()) {
        wide_scores.resize(wide.size());
        for (std::size_t i = 0; i < wide.size(); ++i) wide_scores[i] = scores[wide[i]];
    }
    const ScratchVector<std::uint64_t> core = select_topk(wide_scores, least).indices;

    // Walk wide in index order: core members count toward the weight, the others (at most
    // |singles| of them) wait in `rest` for their turn in rank order.
    ScratchVector<std::uint8_t> keep(wide.size(), 0);
    ScratchVector<std::uint64_t> rest;  // local indices into wide
    std::uint64_t weight = 0;
    std::size_t c = 0, s = 0;
    for (std::size_t i = 0; i < wide.size(); ++i) {
        while (s < singles.size() && singles[s] < wide[i]) ++s;
        const bool single = s < singles.size() && singles[s] == wide[i];
        if (c < core.size() && core[c] == i) {
            keep[i] = 1;
            weight += single ? 1 : 2;
            ++c;
        } else {
            rest.push_back(i);
        }
    }
    // Each further coefficient adds at least 1, so the first `deficit` in rank order suffice.
    // Rank keys are gathered first: sorting through indices into `scores` would miss cache.
    const std::size_t deficit = static_cast<std::size_t>(
        weight >= target ? 0 : std::min<std::uint64_t>(target - weight, rest.size()));
    ScratchVector<std::pair<std::uint32_t, std::uint64_t>> ranked;
    ranked.reserve(rest.size());
    for (const std::uint64_t r : rest) {
        ranked.emplace_back(0x7fffffffu - magnitude_bits(wide_scores[r]), r);
    }
    const auto cut = ranked.begin() + static_cast<std::ptrdiff_t>(deficit);
    std::nth_element(ranked.begin(), cut, ranked.end());
    std::sort(ranked.begin(), cut);
    for (std::size_t i = 0; i < deficit && weight < target; ++i) {
        const std::uint64_t local = ranked[i].second;
        keep[local] = 1;
        weight += std::binary_search(singles.begin(), singles.end(), wide[local]) ? 1 : 2;
    }
    std::size_t out = 0;
    for (std::size_t i = 0; i < wide.size(); ++i) {
        if (keep[i] != 0) wide[out++] = wide[i];
    }
    wide.resize(out);
    return wide;
}

ScratchVector<std::uint64_t> select_coefficients(FrequencySelector selector,
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
