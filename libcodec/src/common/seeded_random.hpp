#pragma once
// The format's one random generator (format-spec/FORMAT.md, "Seeded randomness"): SplitMix64,
// used counter-style, so draw i of a seed is a pure function of (seed, i). Any decoder can
// reproduce a draw, and work split across threads draws the same numbers in any order.
#include <cstdint>

namespace gradcodec {

inline constexpr std::uint64_t kSplitMixGamma = 0x9e3779b97f4a7c15ull;

// SplitMix64's output for the state `x` (the state already advanced).
constexpr std::uint64_t splitmix64_mix(std::uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Draw i (0-based) of the sequence that `seed` starts: SplitMix64's (i+1)-th output.
constexpr std::uint64_t seeded_draw(std::uint64_t seed, std::uint64_t i) {
    return splitmix64_mix(seed + (i + 1) * kSplitMixGamma);
}

// The first draw of a seed: what a one-number use of the generator takes.
constexpr std::uint64_t splitmix64(std::uint64_t seed) {
    return seeded_draw(seed, 0);
}

// The 128-bit product of GCC and Clang (an extension, hence the keyword).
__extension__ using Unsigned128 = unsigned __int128;

// An integer in [0, m): the high 64 bits of draw × m (no rejection; the bias is below m / 2^64).
inline std::uint64_t draw_below(std::uint64_t draw, std::uint64_t m) {
    return static_cast<std::uint64_t>((static_cast<Unsigned128>(draw) * m) >> 64);
}

// Stochastic rounding's coin: true with probability p (p in [0, 1]) for a uniform draw. The
// draw's top 24 bits u give the event u < p · 2^24, computed exactly in binary64.
inline bool draw_below_probability(std::uint64_t draw, double p) {
    return static_cast<double>(draw >> 40) < p * 16777216.0;
}

// A seed for a record whose spec gives none: 64 bits from the operating system's random source.
std::uint64_t fresh_seed();

}  // namespace gradcodec
