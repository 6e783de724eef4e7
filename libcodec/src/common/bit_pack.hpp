#pragma once
// Fixed-width bit packing: `width`-bit codes stored LSB-first, code i at bit offset i*width of
// a little-endian bit string, the last byte padded with zero bits. Shared by the range-float
// coder and any codec that stores fixed-width fields (indices, run lengths).
#include <cstddef>
#include <cstdint>
#include <span>

namespace gradcodec {

// Bytes that `count` codes of `width` bits take. The caller bounds count so that count * width
// cannot overflow (any count below 2^58 is safe for width <= 32).
constexpr std::uint64_t packed_byte_count(std::uint64_t count, int width) {
    return (count * static_cast<std::uint64_t>(width) + 7) / 8;
}

// Writes packed_byte_count(codes.size(), width) bytes to `out`. `width` is 1..32 and every
// code must fit in it (higher bits are dropped). `out` must hold at least that many bytes.
void pack_bits(std::span<const std::uint32_t> codes, int width, std::uint8_t* out);

// Reads codes.size() codes of `width` bits from `in`, which must hold
// packed_byte_count(codes.size(), width) bytes (the caller checks the length).
void unpack_bits(const std::uint8_t* in, int width, std::span<std::uint32_t> codes);

// True when the padding bits after `count` codes of `width` bits in the last byte are zero.
// Decoders use it to refuse non-canonical payloads.
bool padding_is_zero(std::span<const std::uint8_t> packed, std::uint64_t count, int width);

}  // namespace gradcodec
