#pragma once
// The section that carries the stochastic quantisers' integer codes (qsgd levels, terngrad
// trits): one symbol per value from an alphabet [0, A), coded whichever of three ways is
// smallest for the tensor, optionally inside one zstd frame (format-spec/codec-qsgd.md §3).
// Signed levels map to symbols as 0 -> 0, +l -> 2l - 1, -l -> 2l, so that small magnitudes,
// the common ones, get the short codes.
#include <cstdint>
#include <span>

#include "common/byte_io.hpp"
#include "common/scratch.hpp"

namespace gradcodec {

enum class SymbolCoding : std::uint8_t { fixed_width = 0, gamma = 1, base3 = 2 };
inline constexpr std::uint8_t kSymbolZstdFlag = 0x80;

constexpr std::uint32_t symbol_of_level(std::int32_t level) {
    return level > 0 ? 2 * static_cast<std::uint32_t>(level) - 1
                     : 2 * static_cast<std::uint32_t>(-level);
}
constexpr std::int32_t level_of_symbol(std::uint32_t symbol) {
    return symbol % 2 ? static_cast<std::int32_t>((symbol + 1) / 2)
                      : -static_cast<std::int32_t>(symbol / 2);
}

// Appends the section for `symbols`, each < alphabet (alphabet >= 2).
void encode_symbols(std::span<const std::uint32_t> symbols, std::uint32_t alphabet,
                    ByteWriter& out);

// Reads one section of out.size() symbols, each checked < alphabet. Throws
// Error(damaged_stream) on damage, naming the reader's tensor.
void decode_symbols(ByteReader& in, std::uint32_t alphabet, std::span<std::uint32_t> out);

// The section's size in bits, stepping the reader over it (for inspect).
std::uint64_t symbol_section_bits(ByteReader& in);

// The most bytes encode_symbols can write for `count` symbols.
std::uint64_t symbol_section_bound(std::uint64_t count, std::uint32_t alphabet);

}  // namespace gradcodec
