// The Elias-Fano position coder: about 2 + log2(n/k) bits per position whatever their
// clustering, which bounds the worst case the gap coder can reach.
#include <bit>

#include "common/scratch.hpp"
#include "index/position_coders.hpp"

namespace gradcodec {

std::uint64_t elias_fano_data_bits(std::uint64_t n, std::uint64_t k, unsigned l) {
    if (k == 0) return 0;
    return k * l + ((n - 1) >> l) + k;
}

unsigned best_elias_fano_low_bits(std::uint64_t n, std::uint64_t k) {
    if (k == 0) return 0;
    unsigned best = 0;
    for (unsigned l = 1; l < 64; ++l)
        if (elias_fano_data_bits(n, k, l) < elias_fano_data_bits(n, k, best)) best = l;
    return best;
}

ScratchVector<std::uint8_t> encode_elias_fano(std::span<const std::uint64_t> sorted,
                                              std::uint64_t n, unsigned l) {
    BitWriter w;
    const std::uint64_t low_mask = l == 0 ? 0 : (~0ull >> (64 - l));
    for (const std::uint64_t p : sorted) w.put(p & low_mask, l);
    if (!sorted.empty()) {
        // Upper bits: position i sets bit (p_i >> l) + i, i.e. (p_i >> l) - (p_{i-1} >> l) zeros
        // then a one; trailing zeros fill the part to its fixed length.
        std::uint64_t prev_high = 0;
        for (const std::uint64_t p : sorted) {
            const std::uint64_t high = p >> l;
            w.zeros(high - prev_high);
            w.put(1, 1);
            prev_high = high;
        }
        w.zeros(((n - 1) >> l) - prev_high);
    }
    return w.finish();
}

void decode_elias_fano(BitReader& in, std::uint64_t n, std::uint64_t k, unsigned l,
                       PositionEmitter& out) {
    if (k == 0) return;
    const std::uint64_t upper_start = k * l;
    BitReader low(in);  // reads the low bits while `in` walks the upper bits
    in.seek(upper_start);
    const std::uint64_t max_high = (n - 1) >> l;
    std::uint64_t high = 0;
    for (std::uint64_t i = 0; i < k; ++i) {
        high += in.unary(max_high - high);
        const std::uint64_t lo =
            l <= 56 ? low.get(l) : (low.get(l - 32) | (low.get(32) << (l - 32)));
        out.push((high << l) | lo);
    }
    // The upper part ends with exactly max_high - high zeros (checked as padding by the caller).
    if (in.remaining() < max_high - high) in.damaged("the Elias-Fano upper bits are truncated");
    in.seek(in.position() + (max_high - high));
}

}  // namespace gradcodec
