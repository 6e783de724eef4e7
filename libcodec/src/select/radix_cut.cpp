#include "select/radix_cut.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>

#include "select/magnitude_scan.hpp"

namespace gradcodec {
namespace {

constexpr std::size_t kBuckets = 1u << 16;

// Zeroed by calloc, whose large blocks come straight from the kernel: only the pages of the
// buckets a group uses (a few exponents) are ever touched. A vector would write all 512 KiB
// first, which costs more than the histogram itself on a step of small tensors.
struct FreeCounts {
    void operator()(std::uint64_t* p) const { std::free(p); }
};
class Histogram {
  public:
    Histogram()
        : counts_(static_cast<std::uint64_t*>(std::calloc(kBuckets, sizeof(std::uint64_t)))) {
        if (!counts_) throw std::bad_alloc();
    }
    std::span<std::uint64_t> counts() { return {counts_.get(), kBuckets}; }

  private:
    std::unique_ptr<std::uint64_t, FreeCounts> counts_;
};

// What a histogram holds: its total weight and its highest non-empty bucket, so the scan
// for the cut starts there and never touches the pages of the empty top buckets.
struct Filled {
    std::uint64_t total = 0;
    std::size_t top = 0;  // one past the highest non-empty bucket
};

// Weighted histogram of (pattern >> shift) & 0xffff over the elements whose high half is
// `high` (every element when `high` is negative).
void add_histogram(std::span<const float> x, const ElementWeights& w, long high, int shift,
                   std::span<std::uint64_t> hist, Filled& filled) {
    std::size_t single = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const std::uint32_t b = magnitude_bits(x[i]);
        if (high >= 0 && (b >> 16) != static_cast<std::uint32_t>(high)) continue;
        std::uint64_t weight = 1;
        if (w.doubled) {
            while (single < w.singles.size() && w.singles[single] < i) ++single;
            weight = single < w.singles.size() && w.singles[single] == i ? 1 : 2;
        }
        const std::size_t bucket = (b >> shift) & 0xffffu;
        hist[bucket] += weight;
        filled.total += weight;
        filled.top = std::max(filled.top, bucket + 1);
    }
}

struct Found {
    std::uint32_t index = 0;
    std::uint64_t above = 0;  // weight in higher buckets
};

Found find_from_top(std::span<const std::uint64_t> hist, std::size_t top, std::uint64_t target,
                    std::uint64_t above) {
    for (std::size_t b = top; b-- > 0;) {
        if (above + hist[b] >= target) return {static_cast<std::uint32_t>(b), above};
        above += hist[b];
    }
    return {0, above};
}

}  // namespace

MagnitudeCut group_topk_cut(const ScorePasses& passes, std::uint64_t target) {
    if (target == 0) return {0x7fffffffu, 0};
    Histogram high_counts;
    const std::span<std::uint64_t> high = high_counts.counts();
    Filled high_filled;
    passes([&](std::span<const float> x, const ElementWeights& w) {
        add_histogram(x, w, -1, 16, high, high_filled);
    });
    if (high_filled.total < target) return {0, kKeepAllTies};
    const Found bucket = find_from_top(high, high_filled.top, target, 0);
    Histogram low_counts;
    const std::span<std::uint64_t> low = low_counts.counts();
    Filled low_filled;
    passes([&](std::span<const float> x, const ElementWeights& w) {
        add_histogram(x, w, bucket.index, 0, low, low_filled);
    });
    const Found cut = find_from_top(low, low_filled.top, target, bucket.above);
    return {(bucket.index << 16) | cut.index, target - cut.above};
}

std::uint64_t group_count_at_least(const ScorePasses& passes, std::uint32_t lo) {
    std::uint64_t count = 0;
    passes(
        [&](std::span<const float> x, const ElementWeights&) { count += count_at_least(x, lo); });
    return count;
}

}  // namespace gradcodec
