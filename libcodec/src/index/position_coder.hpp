#pragma once
// TEMP stub (drop at merge): the threshold branch's index/position_coder.hpp interface.
#include <cstdint>
#include <span>
#include <vector>

#include "common/byte_io.hpp"

namespace gradcodec {

void encode_positions(std::span<const std::uint64_t> sorted, std::uint64_t n, ByteWriter& out);
std::vector<std::uint64_t> decode_positions(ByteReader& in, std::uint64_t n);

struct PositionSectionInfo {
    std::uint64_t count = 0;
    std::uint64_t bits = 0;
};
PositionSectionInfo describe_positions(ByteReader& in, std::uint64_t n);

}  // namespace gradcodec
