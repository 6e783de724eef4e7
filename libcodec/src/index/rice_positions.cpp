// The Golomb-Rice gap coder: near the entropy bound when gaps are roughly geometric, i.e. when
// the kept positions look uniformly spread, as they do in most gradient tensors.
#include <bit>
#include <cmath>

#include "index/position_coders.hpp"

namespace gradcodec {
namespace {

std::uint64_t gap_at(std::span<const std::uint64_t> sorted, std::size_t i) {
    return i == 0 ? sorted[0] : sorted[i] - sorted[i - 1] - 1;
}

}  // namespace

std::uint64_t rice_data_bits(std::span<const std::uint64_t> sorted, unsigned r) {
    std::uint64_t bits = std::uint64_t{sorted.size()} * (r + 1);
    for (std::size_t i = 0; i < sorted.size(); ++i) bits += gap_at(sorted, i) >> r;
    return bits;
}

unsigned best_rice_parameter(std::span<const std::uint64_t> sorted, std::uint64_t n) {
    if (sorted.empty()) return 0;
    // The cost is convex in r (its forward difference k - sum ceil((g >> r) / 2) never
    // decreases), so walking downhill from the geometric estimate finds the exact minimum.
    const double mean_gap =
        static_cast<double>(n - sorted.size()) / static_cast<double>(sorted.size());
    unsigned r = mean_gap > 1 ? static_cast<unsigned>(std::floor(std::log2(mean_gap * 0.6931))) : 0;
    if (r > 63) r = 63;
    std::uint64_t cost = rice_data_bits(sorted, r);
    while (r > 0) {
        const std::uint64_t c = rice_data_bits(sorted, r - 1);
        if (c > cost) break;  // ties go to the smaller parameter
        cost = c;
        --r;
    }
    while (r < 63) {
        const std::uint64_t c = rice_data_bits(sorted, r + 1);
        if (c >= cost) break;
        cost = c;
        ++r;
    }
    return r;
}

std::vector<std::uint8_t> encode_rice(std::span<const std::uint64_t> sorted, unsigned r) {
    BitWriter w;
    const std::uint64_t low_mask = r == 0 ? 0 : (~0ull >> (64 - r));
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        const std::uint64_t g = gap_at(sorted, i);
        const std::uint64_t q = g >> r;
        if (q + 1 + r <= 56) {  // the whole code in one write: q zeros, a one, the low bits
            w.put(((g & low_mask) << (q + 1)) | (1ull << q), static_cast<unsigned>(q + 1 + r));
            continue;
        }
        w.zeros(q);
        w.put(1, 1);
        w.put(g & low_mask, r);
    }
    return w.finish();
}

void decode_rice(BitReader& in, std::uint64_t n, std::uint64_t k, unsigned r,
                 PositionEmitter& out) {
    std::uint64_t next = 0;  // the smallest position the next gap may start from
    for (std::uint64_t i = 0; i < k; ++i) {
        std::uint64_t q = 0, low = 0;
        if (!in.try_rice(r, q, low)) {
            q = in.unary(n >> r);
            low = r <= 56 ? in.get(r) : (in.get(r - 32) | (in.get(32) << (r - 32)));
        }
        if (q > (n >> r)) in.damaged("a gap exceeds the tensor");
        const std::uint64_t gap = (q << r) | low;
        if (gap >= n - next) in.damaged("a gap runs past the element count " + std::to_string(n));
        out.push(next + gap);
        next += gap + 1;
    }
}

}  // namespace gradcodec
