#include "common/bit_pack.hpp"

namespace gradcodec {

void pack_bits(std::span<const std::uint32_t> codes, int width, std::uint8_t* out) {
    // A 64-bit accumulator holds < 8 pending bits plus one code of <= 32 bits.
    const std::uint64_t mask = width == 32 ? 0xFFFFFFFFull : (1ull << width) - 1;
    std::uint64_t acc = 0;
    int filled = 0;
    for (const std::uint32_t code : codes) {
        acc |= (code & mask) << filled;
        filled += width;
        while (filled >= 8) {
            *out++ = static_cast<std::uint8_t>(acc);
            acc >>= 8;
            filled -= 8;
        }
    }
    if (filled > 0) *out = static_cast<std::uint8_t>(acc);
}

void unpack_bits(const std::uint8_t* in, int width, std::span<std::uint32_t> codes) {
    const std::uint64_t mask = width == 32 ? 0xFFFFFFFFull : (1ull << width) - 1;
    std::uint64_t acc = 0;
    int filled = 0;
    for (std::uint32_t& code : codes) {
        while (filled < width) {
            acc |= std::uint64_t{*in++} << filled;
            filled += 8;
        }
        code = static_cast<std::uint32_t>(acc & mask);
        acc >>= width;
        filled -= width;
    }
}

bool padding_is_zero(std::span<const std::uint8_t> packed, std::uint64_t count, int width) {
    const std::uint64_t used_bits = count * static_cast<std::uint64_t>(width);
    const unsigned tail = static_cast<unsigned>(used_bits % 8);
    if (tail == 0 || packed.empty()) return true;
    return (packed.back() >> tail) == 0;
}

}  // namespace gradcodec
