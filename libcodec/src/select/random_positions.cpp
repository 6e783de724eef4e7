#include "select/random_positions.hpp"

#include <bit>

#include "common/seeded_random.hpp"

namespace gradcodec {

ScratchVector<std::uint64_t> draw_random_positions(std::uint64_t n, std::uint64_t k,
                                                   std::uint64_t seed) {
    // Floyd: for j = n-k .. n-1, draw t in [0, j]; keep t, or j when t is kept already. Every
    // k-subset comes out with the same probability, in k draws, whatever k is.
    ScratchVector<std::uint64_t> member((n + 63) / 64, 0);
    for (std::uint64_t i = 0; i < k; ++i) {
        const std::uint64_t j = n - k + i;
        std::uint64_t t = draw_below(seeded_draw(seed, i), j + 1);
        if (member[t / 64] >> (t % 64) & 1) t = j;
        member[t / 64] |= std::uint64_t{1} << (t % 64);
    }
    ScratchVector<std::uint64_t> positions;
    positions.reserve(k);
    for (std::uint64_t w = 0; w < member.size(); ++w) {
        for (std::uint64_t bits = member[w]; bits != 0; bits &= bits - 1) {
            positions.push_back(64 * w + static_cast<std::uint64_t>(std::countr_zero(bits)));
        }
    }
    return positions;
}

}  // namespace gradcodec
