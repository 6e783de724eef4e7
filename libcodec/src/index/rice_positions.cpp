// The Golomb-Rice gap coders: one parameter for the whole set (near the entropy bound when the
// kept positions look uniformly spread), or one parameter per block of gaps, which follows the
// local density of clustered positions (rows or channels of large gradients) and then codes
// real gradients' positions below the uniform bound log2 C(n,k).
#include <bit>
#include <cmath>

#include "index/position_coders.hpp"

namespace gradcodec {
namespace {

std::uint64_t gap_at(std::span<const std::uint64_t> sorted, std::size_t i) {
    return i == 0 ? sorted[0] : sorted[i] - sorted[i - 1] - 1;
}

// Bits of the codes of gaps [begin, end) with parameter r.
std::uint64_t range_bits(std::span<const std::uint64_t> sorted, std::size_t begin, std::size_t end,
                         unsigned r) {
    std::uint64_t bits = std::uint64_t{end - begin} * (r + 1);
    for (std::size_t i = begin; i < end; ++i) bits += gap_at(sorted, i) >> r;
    return bits;
}

// The cost is convex in r (its forward difference k - sum ceil((g >> r) / 2) never decreases),
// so walking downhill from the geometric estimate finds the exact minimum; ties go to the
// smaller parameter.
unsigned best_range_parameter(std::span<const std::uint64_t> sorted, std::size_t begin,
                              std::size_t end, double mean_gap, std::uint64_t* bits_out) {
    unsigned r = mean_gap > 1 ? static_cast<unsigned>(std::floor(std::log2(mean_gap * 0.6931))) : 0;
    if (r > 63) r = 63;
    std::uint64_t cost = range_bits(sorted, begin, end, r);
    bool moved_down = false;
    while (r > 0) {
        const std::uint64_t c = range_bits(sorted, begin, end, r - 1);
        if (c > cost) break;
        cost = c;
        --r;
        moved_down = true;
    }
    while (!moved_down && r < 63) {
        const std::uint64_t c = range_bits(sorted, begin, end, r + 1);
        if (c >= cost) break;
        cost = c;
        ++r;
    }
    if (bits_out) *bits_out = cost;
    return r;
}

double block_mean_gap(std::span<const std::uint64_t> sorted, std::size_t begin, std::size_t end) {
    std::uint64_t sum = 0;
    for (std::size_t i = begin; i < end; ++i) sum += gap_at(sorted, i);
    return static_cast<double>(sum) / static_cast<double>(end - begin);
}

void encode_range(BitWriter& w, std::span<const std::uint64_t> sorted, std::size_t begin,
                  std::size_t end, unsigned r) {
    const std::uint64_t low_mask = r == 0 ? 0 : (~0ull >> (64 - r));
    for (std::size_t i = begin; i < end; ++i) {
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
}

// Decodes `count` codes with parameter r; `next` is the smallest position the next gap may
// start from.
void decode_range(BitReader& in, std::uint64_t n, std::uint64_t count, unsigned r,
                  std::uint64_t& next, PositionEmitter& out) {
    for (std::uint64_t i = 0; i < count; ++i) {
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

}  // namespace

std::uint64_t rice_data_bits(std::span<const std::uint64_t> sorted, unsigned r) {
    return range_bits(sorted, 0, sorted.size(), r);
}

unsigned best_rice_parameter(std::span<const std::uint64_t> sorted, std::uint64_t n) {
    if (sorted.empty()) return 0;
    const double mean_gap =
        static_cast<double>(n - sorted.size()) / static_cast<double>(sorted.size());
    return best_range_parameter(sorted, 0, sorted.size(), mean_gap, nullptr);
}

std::vector<std::uint8_t> encode_rice(std::span<const std::uint64_t> sorted, unsigned r) {
    BitWriter w;
    encode_range(w, sorted, 0, sorted.size(), r);
    return w.finish();
}

void decode_rice(BitReader& in, std::uint64_t n, std::uint64_t k, unsigned r,
                 PositionEmitter& out) {
    std::uint64_t next = 0;
    decode_range(in, n, k, r, next, out);
}

std::uint64_t rice_blocks_data_bits(std::span<const std::uint64_t> sorted, unsigned log2_block) {
    const std::size_t block = std::size_t{1} << log2_block;
    std::uint64_t bits = 0;
    for (std::size_t b = 0; b < sorted.size(); b += block) {
        const std::size_t e = std::min(sorted.size(), b + block);
        std::uint64_t cost = 0;
        best_range_parameter(sorted, b, e, block_mean_gap(sorted, b, e), &cost);
        bits += kRiceBlockParameterBits + cost;
    }
    return bits;
}

unsigned best_rice_block_size(std::span<const std::uint64_t> sorted) {
    unsigned best = kRiceBlockLog2Min;
    std::uint64_t best_bits = rice_blocks_data_bits(sorted, best);
    for (unsigned l = kRiceBlockLog2Min + 1; l <= kRiceBlockLog2Max; ++l) {
        const std::uint64_t b = rice_blocks_data_bits(sorted, l);
        if (b < best_bits) {
            best = l;
            best_bits = b;
        }
    }
    return best;
}

std::vector<std::uint8_t> encode_rice_blocks(std::span<const std::uint64_t> sorted,
                                             unsigned log2_block) {
    BitWriter w;
    const std::size_t block = std::size_t{1} << log2_block;
    for (std::size_t b = 0; b < sorted.size(); b += block) {
        const std::size_t e = std::min(sorted.size(), b + block);
        const unsigned r =
            best_range_parameter(sorted, b, e, block_mean_gap(sorted, b, e), nullptr);
        w.put(r, kRiceBlockParameterBits);
        encode_range(w, sorted, b, e, r);
    }
    return w.finish();
}

void decode_rice_blocks(BitReader& in, std::uint64_t n, std::uint64_t k, unsigned log2_block,
                        PositionEmitter& out) {
    const std::uint64_t block = std::uint64_t{1} << log2_block;
    std::uint64_t next = 0;
    for (std::uint64_t b = 0; b < k; b += block) {
        const auto r = static_cast<unsigned>(in.get(kRiceBlockParameterBits));
        decode_range(in, n, std::min(block, k - b), r, next, out);
    }
}

}  // namespace gradcodec
