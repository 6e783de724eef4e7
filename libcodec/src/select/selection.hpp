#pragma once
// TEMP stub (drop at merge): the threshold branch's select/selection.hpp, reduced.
#include <bit>
#include <cstdint>
#include <vector>

namespace gradcodec {

struct Selection {
    std::vector<std::uint64_t> indices;  // ascending
    float threshold = 0.0f;
};

inline std::uint32_t magnitude_bits(float x) {
    return std::bit_cast<std::uint32_t>(x) & 0x7fffffffu;
}

}  // namespace gradcodec
