#pragma once
// What every selector returns: the kept element indices, ascending, and the threshold it used.
// Selectors rank elements by |x| through the bit pattern of |x|: non-negative binary32 values
// order like their unsigned bits, so -0 equals +0, subnormals rank below every normal, and a
// NaN (whose magnitude pattern exceeds +inf's) ranks above every number. The codecs refuse
// non-finite input unless told to carry it; the selectors themselves never fail on it.
#include <bit>
#include <cstdint>
#include <vector>

#include "common/scratch.hpp"

namespace gradcodec {

struct Selection {
    ScratchVector<std::uint64_t> indices;  // ascending, each < x.size()
    // top-k: the k-th largest magnitude (the smallest kept); threshold and SIDCo: T of |x| > T;
    // DGC: the sampled threshold of its last round (|x| >= T), or the top-k cut when it fell
    // back to an exact top-k among the candidates.
    float threshold = 0.0f;
    // Either empty or x[indices[i]] for every i: a selector that met the kept values on its
    // way fills it, which spares the codec another pass over x.
    ScratchVector<float> values;
};

inline std::uint32_t magnitude_bits(float x) {
    return std::bit_cast<std::uint32_t>(x) & 0x7fffffffu;
}

// The smallest magnitude pattern that |x| > t selects (t >= 0, finite or +inf).
inline std::uint32_t bits_above(float t) {
    return magnitude_bits(t) + 1;
}

}  // namespace gradcodec
