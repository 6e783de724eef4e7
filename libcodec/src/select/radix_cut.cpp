#include "select/radix_cut.hpp"

#include <algorithm>
#include <vector>

#include "select/magnitude_scan.hpp"

namespace gradcodec {
namespace {

constexpr std::size_t kBuckets = 1u << 16;

// Weighted histogram of (pattern >> shift) & 0xffff over the elements whose high half is
// `high` (every element when `high` is negative).
void add_histogram(std::span<const float> x, const ElementWeights& w, long high, int shift,
                   std::vector<std::uint64_t>& hist) {
    std::size_t single = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const std::uint32_t b = magnitude_bits(x[i]);
        if (high >= 0 && (b >> 16) != static_cast<std::uint32_t>(high)) continue;
        std::uint64_t weight = 1;
        if (w.doubled) {
            while (single < w.singles.size() && w.singles[single] < i) ++single;
            weight = single < w.singles.size() && w.singles[single] == i ? 1 : 2;
        }
        hist[(b >> shift) & 0xffffu] += weight;
    }
}

struct Found {
    std::uint32_t index = 0;
    std::uint64_t above = 0;  // weight in higher buckets
};

Found find_from_top(const std::vector<std::uint64_t>& hist, std::uint64_t target,
                    std::uint64_t above) {
    for (std::size_t b = hist.size(); b-- > 0;) {
        if (above + hist[b] >= target) return {static_cast<std::uint32_t>(b), above};
        above += hist[b];
    }
    return {0, above};
}

}  // namespace

MagnitudeCut group_topk_cut(const ScorePasses& passes, std::uint64_t target) {
    if (target == 0) return {0x7fffffffu, 0};
    std::vector<std::uint64_t> high(kBuckets, 0);
    passes([&](std::span<const float> x, const ElementWeights& w) {
        add_histogram(x, w, -1, 16, high);
    });
    std::uint64_t total = 0;
    for (const std::uint64_t h : high) total += h;
    if (total < target) return {0, kKeepAllTies};
    const Found bucket = find_from_top(high, target, 0);
    std::vector<std::uint64_t> low(kBuckets, 0);
    passes([&](std::span<const float> x, const ElementWeights& w) {
        add_histogram(x, w, bucket.index, 0, low);
    });
    const Found cut = find_from_top(low, target, bucket.above);
    return {(bucket.index << 16) | cut.index, target - cut.above};
}

std::uint64_t group_count_at_least(const ScorePasses& passes, std::uint32_t lo) {
    std::uint64_t count = 0;
    passes(
        [&](std::span<const float> x, const ElementWeights&) { count += count_at_least(x, lo); });
    return count;
}

}  // namespace gradcodec
