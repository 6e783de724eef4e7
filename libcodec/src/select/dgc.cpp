#include "select/dgc.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "common/scratch.hpp"
#include "common/seeded_random.hpp"
#include "select/magnitude_scan.hpp"
#include "select/radix_cut.hpp"
#include "select/topk.hpp"

namespace gradcodec {
namespace {

// The k_s-th largest magnitude of the sample.
std::uint32_t sampled_threshold(std::span<const float> x, const DgcParams& p) {
    const ScratchVector<std::uint64_t> positions = dgc_sample_positions(x.size(), p);
    ScratchVector<float> sample(positions.size());
    for (std::size_t i = 0; i < positions.size(); ++i) sample[i] = x[positions[i]];
    return topk_cut(sample, topk_count(sample.size(), p.density)).bits;
}

// Exact top-k among the elements at or above `lo` (all of the top k are among them).
Selection topk_among(std::span<const float> x, std::uint32_t lo, std::uint64_t candidates,
                     std::uint64_t k) {
    if (candidates > x.size() / 4) return select_topk(x, k);
    ScratchVector<std::uint64_t> index;
    collect_counted_at_least(x, lo, candidates, index);
    ScratchVector<float> magnitude(index.size());
    for (std::size_t i = 0; i < index.size(); ++i) magnitude[i] = x[index[i]];
    Selection inner = select_topk(magnitude, k);
    for (auto& i : inner.indices) i = index[i];
    return inner;
}

}  // namespace

// Sample i is element floor((offset + i*n) / samples) for a seeded offset in [0, n): a
// fractional stride n/samples from a random start, so the sample spans the whole tensor. (A
// whole-number stride floor(n/samples) leaves the last n mod samples elements unsampled: up to
// half the tensor when n < 2*samples, which ceil(2/density) samples make common.)
DgcSampleWalk::DgcSampleWalk(std::uint64_t n, const DgcParams& p) {
    if (n == 0) return;
    const double wanted =
        std::max(std::ceil(p.sample * static_cast<double>(n)), std::ceil(2.0 / p.density));
    samples_ = wanted >= static_cast<double>(n) ? n : static_cast<std::uint64_t>(wanted);
    const std::uint64_t offset = splitmix64(p.seed) % n;
    // Bresenham steps through (offset + i*n) / samples: quotient and remainder, no overflow.
    step_ = n / samples_;
    carry_ = n % samples_;
    position_ = offset / samples_;
    remainder_ = offset % samples_;
}

void DgcSampleWalk::advance() {
    ++taken_;
    position_ += step_;
    remainder_ += carry_;
    if (remainder_ >= samples_) {
        remainder_ -= samples_;
        ++position_;
    }
}

ScratchVector<std::uint64_t> dgc_sample_positions(std::uint64_t n, const DgcParams& p) {
    DgcSampleWalk walk(n, p);
    ScratchVector<std::uint64_t> out;
    out.reserve(walk.size());
    for (; !walk.done(); walk.advance()) out.push_back(walk.position());
    return out;
}

MagnitudeCut group_dgc_cut(const ScorePasses& passes, std::uint64_t n, const DgcParams& params) {
    if (n == 0) return {0x7fffffffu, 0};
    const ScorePasses counted = [&](const ScoreVisitor& visit) {
        passes([&](std::span<const float> x, const ElementWeights&) { visit(x, {}); });
    };
    // The sample's top-k cut, over the sampled elements of each tensor in turn.
    const ScorePasses sampled = [&](const ScoreVisitor& visit) {
        DgcSampleWalk walk(n, params);
        std::uint64_t first = 0;
        ScratchVector<float> picked;
        passes([&](std::span<const float> x, const ElementWeights&) {
            picked.clear();
            for (; !walk.done() && walk.position() < first + x.size(); walk.advance()) {
                picked.push_back(x[walk.position() - first]);
            }
            first += x.size();
            visit(picked, {});
        });
    };
    const std::uint64_t samples = DgcSampleWalk(n, params).size();
    std::uint32_t thr = group_topk_cut(sampled, topk_count(samples, params.density)).bits;
    const std::uint64_t k = topk_count(n, params.density);
    const double target = params.density * static_cast<double>(n);
    const std::uint64_t k_high = std::max(k, static_cast<std::uint64_t>(1.3 * target));
    const double k_low = 0.8 * static_cast<double>(k);
    for (int round = 0; round < kDgcRounds; ++round) {
        const std::uint64_t selected = group_count_at_least(counted, thr);
        if (selected > k_high) return group_topk_cut(counted, k);
        const bool last = round + 1 == kDgcRounds;
        if (static_cast<double>(selected) >= k_low || last || thr == 0) break;
        thr = magnitude_bits(std::bit_cast<float>(thr) * 0.8f);
    }
    return {thr, kKeepAllTies};
}

Selection select_dgc(std::span<const float> x, const DgcParams& params) {
    Selection s;
    if (x.empty()) return s;
    const std::uint64_t k = topk_count(x.size(), params.density);
    // The band is 0.8..1.3 times the target count density*n, not times k = ceil(density*n):
    // on small tensors 1.3*k can admit a count far past 1.3*density*n (5 of 32 at density 0.1
    // is 1.56 times the target). Where no count lies in the band, the exact top k is kept.
    const double target = params.density * static_cast<double>(x.size());
    const std::uint64_t k_high = std::max(k, static_cast<std::uint64_t>(1.3 * target));
    const double k_low = 0.8 * static_cast<double>(k);
    std::uint32_t thr = sampled_threshold(x, params);
    for (int round = 0; round < kDgcRounds; ++round) {
        s.indices.clear();
        const std::uint64_t selected = collect_at_least(x, thr, k_high, s.indices);
        if (selected > k_high) {
            Selection exact = topk_among(x, thr, selected, k);
            return exact;
        }
        const bool last = round + 1 == kDgcRounds;
        if (static_cast<double>(selected) >= k_low || last || thr == 0) break;
        thr = magnitude_bits(std::bit_cast<float>(thr) * 0.8f);
    }
    s.threshold = std::bit_cast<float>(thr);
    return s;
}

}  // namespace gradcodec
