// The bitmap position coder: bit p set when element p is kept (n bits).
#include <bit>

#include "common/scratch.hpp"
#include "index/position_coders.hpp"

namespace gradcodec {

std::uint64_t bitmap_data_bytes(std::uint64_t n) {
    return bytes_for_bits(n);
}

ScratchVector<std::uint8_t> encode_bitmap(std::span<const std::uint64_t> sorted, std::uint64_t n) {
    ScratchVector<std::uint8_t> out(bitmap_data_bytes(n), 0);
    for (const std::uint64_t p : sorted) out[p >> 3] |= static_cast<std::uint8_t>(1u << (p & 7));
    return out;
}

void decode_bitmap(BitReader& in, std::uint64_t n, std::uint64_t k, PositionEmitter& out) {
    // Word-wise scan: the set bits are the positions; padding past n is checked to be zero.
    std::uint64_t base = 0;
    while (base < n) {
        const unsigned take = n - base < 56 ? static_cast<unsigned>(n - base) : 56u;
        std::uint64_t w = in.get(take);
        while (w != 0) {
            if (out.count() == k)
                in.damaged("the bitmap holds more positions than its count " + std::to_string(k));
            out.push(base + static_cast<std::uint64_t>(std::countr_zero(w)));
            w &= w - 1;
        }
        base += take;
    }
    if (out.count() != k) {
        in.damaged("the bitmap holds " + std::to_string(out.count()) +
                   " positions, its count says " + std::to_string(k));
    }
}

}  // namespace gradcodec
