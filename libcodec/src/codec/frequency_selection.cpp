#include "codec/frequency_selection.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "common/parallel.hpp"
#include "common/scratch.hpp"
#include "select/dgc.hpp"
#include "select/sidco.hpp"
#include "select/topk.hpp"

namespace gradcodec {
namespace {

constexpr unsigned kHighBuckets = 1u << 15;  // top 16 bits of a magnitude pattern, sign clear
constexpr unsigned kLowBuckets = 1u << 16;

struct WeightCut {
    std::uint32_t bits;  // the magnitude pattern where the prefix ends
    std::uint64_t ties;  // weight still to take from the elements at `bits`, in index order
};

// Scans buckets from the top until their weights reach `target`: the bucket, and the weight
// of the buckets above it.
std::pair<std::uint32_t, std::uint64_t> bucket_reaching(std::span<const std::uint64_t> weights,
                                                        std::uint64_t target) {
    std::uint64_t above = 0;
    for (std::size_t b = weights.size(); b-- > 0;) {
        if (above + weights[b] >= target) return {static_cast<std::uint32_t>(b), above};
        above += weights[b];
    }
    return {0, above};  // unreachable when target <= the total weight
}

// Weights per bucket of the high 16 bits. Counts go to two interleaved 32-bit tables, which
// halves the stalls of runs of equal buckets (scores have few exponents), in pieces short
// enough for the counts to stay exact.
ScratchVector<std::uint64_t> weighted_high_histogram(std::span<const float> scores,
                                                     std::span<const std::uint64_t> singles) {
    ScratchVector<std::uint64_t> high(kHighBuckets, 0);
    ScratchVector<std::uint32_t> h0(kHighBuckets), h1(kHighBuckets);
    constexpr std::size_t kPiece = std::size_t{1} << 31;
    for (std::size_t first = 0; first < scores.size(); first += kPiece) {
        const std::size_t end = std::min(scores.size(), first + kPiece);
        std::fill(h0.begin(), h0.end(), 0u);
        std::fill(h1.begin(), h1.end(), 0u);
        std::size_t i = first;
        for (; i + 2 <= end; i += 2) {
            ++h0[magnitude_bits(scores[i]) >> 16];
            ++h1[magnitude_bits(scores[i + 1]) >> 16];
        }
        if (i < end) ++h0[magnitude_bits(scores[i]) >> 16];
        for (std::size_t b = 0; b < kHighBuckets; ++b)
            high[b] += 2 * (std::uint64_t{h0[b]} + h1[b]);
    }
    for (const std::uint64_t i : singles) high[magnitude_bits(scores[i]) >> 16] -= 1;
    return high;
}

// A radix select on weights: a weighted histogram of the high 16 bits of every score's
// pattern, then of the low 16 bits inside the bucket where the weight reaches `target`.
WeightCut weighted_cut(std::span<const float> scores, std::span<const std::uint64_t> singles,
                       std::uint64_t target) {
    const ScratchVector<std::uint64_t> high = weighted_high_histogram(scores, singles);
    const auto [bucket, above] = bucket_reaching(high, target);
    ScratchVector<std::uint64_t> low(kLowBuckets, 0);
    for (const float v : scores) {
        const std::uint32_t b = magnitude_bits(v);
        if ((b >> 16) == bucket) low[b & 0xffffu] += 2;
    }
    for (const std::uint64_t i : singles) {
        const std::uint32_t b = magnitude_bits(scores[i]);
        if ((b >> 16) == bucket) low[b & 0xffffu] -= 1;
    }
    const auto [low_bucket, low_above] = bucket_reaching(low, target - above);
    return {(bucket << 16) | low_bucket, target - above - low_above};
}

// The same rule as the two top-k passes below, in three passes over the scores: for one
// thread and larger targets, where top-k takes a histogram pass of its own twice.
ScratchVector<std::uint64_t> select_by_weight_serial(std::span<const float> scores,
                                                     std::span<const std::uint64_t> singles,
                                                     std::uint64_t target) {
    ScratchVector<std::uint64_t> kept;
    if (target == 0) return kept;
    const WeightCut cut = weighted_cut(scores, singles, target);
    // Every kept element weighs at least 1, so at most `target` are kept; each index is
    // written before it is known to stay, one slot past the last kept.
    kept.resize(static_cast<std::size_t>(std::min<std::uint64_t>(scores.size(), target + 1)));
    std::size_t out = 0;
    std::uint64_t ties = cut.ties;
    for (std::size_t i = 0; i < scores.size(); ++i) {
        const std::uint32_t b = magnitude_bits(scores[i]);
        kept[out] = i;
        if (b == cut.bits && ties > 0) {
            const bool single = std::binary_search(singles.begin(), singles.end(), i);
            ties -= std::min<std::uint64_t>(ties, single ? 1 : 2);
            ++out;
        } else {
            out += b > cut.bits ? 1 : 0;
        }
    }
    kept.resize(out);
    return kept;
}

}  // namespace

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
    // The radix select reads every score three times; when the kept set is small, top-k's
    // candidate collection (a vectorised pass, then work on the short list) costs less.
    const bool small = (target + 1) / 2 + singles.size() <= size / 8;
    if (codec_threads() <= 1 && !small) return select_by_weight_serial(scores, singles, target);
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
