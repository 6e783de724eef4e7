#pragma once
// AVX2 has no compress instruction (AVX-512's vpcompress): a table of lane permutations stands
// in for it. The kernels that keep some lanes of a vector, in order, permute by the table row
// of their mask and store the whole vector; the lanes past the kept ones are scratch.
#include <cstdint>

#include "common/cpu_features.hpp"

namespace gradcodec {

// For each 8-bit mask, the set lanes' numbers first (the 32-bit left-pack); for each 4-bit
// mask, the set 64-bit lanes' dword pairs first.
struct LeftPackTables {
    alignas(32) std::uint32_t lanes[256][8] = {};
    alignas(32) std::uint32_t pairs[16][8] = {};
};

constexpr LeftPackTables make_left_pack_tables() {
    LeftPackTables t;
    for (unsigned mask = 0; mask < 256; ++mask) {
        unsigned n = 0;
        for (unsigned lane = 0; lane < 8; ++lane)
            if ((mask >> lane) & 1u) t.lanes[mask][n++] = lane;
    }
    for (unsigned mask = 0; mask < 16; ++mask) {
        unsigned n = 0;
        for (unsigned lane = 0; lane < 4; ++lane) {
            if ((mask >> lane) & 1u) {
                t.pairs[mask][n++] = 2 * lane;
                t.pairs[mask][n++] = 2 * lane + 1;
            }
        }
    }
    return t;
}

inline constexpr LeftPackTables kLeftPack = make_left_pack_tables();

#if defined(GRADCODEC_X86_DISPATCH)
// An unaligned store of a whole vector, kept lanes and scratch alike.
template <class T>
__attribute__((target("avx2"), always_inline)) inline void store_whole(T* to, __m256i v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), v);
}

// The sign bits of eight 32-bit lanes.
__attribute__((target("avx2"), always_inline)) inline unsigned lane_mask(__m256i lanes) {
    return static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(lanes)));
}

// The permutation that puts the 32-bit lanes set in `mask` (8 bits) first.
__attribute__((target("avx2"), always_inline)) inline __m256i left_pack_order(unsigned mask) {
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(kLeftPack.lanes[mask]));
}

// The 32-bit lanes of `v` set in `mask` (8 bits), first and in order.
__attribute__((target("avx2"), always_inline)) inline __m256i left_packed(__m256i v,
                                                                          unsigned mask) {
    return _mm256_permutevar8x32_epi32(v, left_pack_order(mask));
}

// The 64-bit lanes of `v` set in `mask` (4 bits), first and in order.
__attribute__((target("avx2"), always_inline)) inline __m256i left_packed_pairs(__m256i v,
                                                                                unsigned mask) {
    const __m256i order =
        _mm256_load_si256(reinterpret_cast<const __m256i*>(kLeftPack.pairs[mask]));
    return _mm256_permutevar8x32_epi32(v, order);
}
#endif

}  // namespace gradcodec
