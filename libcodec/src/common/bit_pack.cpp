#include "common/bit_pack.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <utility>

namespace gradcodec {
namespace {

constexpr std::uint64_t width_mask(int width) {
    return width == 32 ? 0xFFFFFFFFull : (1ull << width) - 1;
}

// One code at a time; the tail after the last whole group, and big-endian hosts.
void pack_generic(std::span<const std::uint32_t> codes, int width, std::uint8_t* out) {
    // A 64-bit accumulator holds < 8 pending bits plus one code of <= 32 bits.
    const std::uint64_t mask = width_mask(width);
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

void unpack_generic(const std::uint8_t* in, int width, std::span<std::uint32_t> codes) {
    const std::uint64_t mask = width_mask(width);
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

// Eight W-bit codes fill exactly W bytes. With W a constant and the loop unrolled, every shift
// and every flush point below is known at compile time: no per-code branches remain.
template <int W>
void pack_groups(const std::uint32_t* codes, std::size_t groups, std::uint8_t* out) {
    constexpr std::uint64_t mask = width_mask(W);
    for (std::size_t g = 0; g < groups; ++g, codes += 8, out += W) {
        std::uint64_t acc = 0;
        int filled = 0;
        std::uint8_t* o = out;
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) {
            acc |= (codes[j] & mask) << filled;
            filled += W;
            if (filled >= 32) {
                const auto word = static_cast<std::uint32_t>(acc);
                std::memcpy(o, &word, 4);
                o += 4;
                acc >>= 32;
                filled -= 32;
            }
        }
        for (int b = 0; b < filled; b += 8) *o++ = static_cast<std::uint8_t>(acc >> b);
    }
}

// Code j of a group starts at bit j*W: one unaligned 8-byte load covers it (shift <= 7,
// width <= 32). Only called where 8 bytes past each group's start + W - 1 are readable.
template <int W>
void unpack_groups(const std::uint8_t* in, std::size_t groups, std::uint32_t* codes) {
    constexpr std::uint64_t mask = width_mask(W);
    for (std::size_t g = 0; g < groups; ++g, codes += 8, in += W) {
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) {
            std::uint64_t w;
            std::memcpy(&w, in + (j * W) / 8, 8);
            codes[j] = static_cast<std::uint32_t>((w >> ((j * W) % 8)) & mask);
        }
    }
}

using PackFn = void (*)(const std::uint32_t*, std::size_t, std::uint8_t*);
using UnpackFn = void (*)(const std::uint8_t*, std::size_t, std::uint32_t*);

template <std::size_t... I>
constexpr auto pack_table(std::index_sequence<I...>) {
    return std::array<PackFn, sizeof...(I)>{&pack_groups<static_cast<int>(I) + 1>...};
}
template <std::size_t... I>
constexpr auto unpack_table(std::index_sequence<I...>) {
    return std::array<UnpackFn, sizeof...(I)>{&unpack_groups<static_cast<int>(I) + 1>...};
}
constexpr auto kPack = pack_table(std::make_index_sequence<32>());
constexpr auto kUnpack = unpack_table(std::make_index_sequence<32>());

constexpr bool kLittle = std::endian::native == std::endian::little;

}  // namespace

void pack_bits(std::span<const std::uint32_t> codes, int width, std::uint8_t* out) {
    const std::size_t groups = kLittle ? codes.size() / 8 : 0;
    if (groups > 0) kPack[static_cast<std::size_t>(width - 1)](codes.data(), groups, out);
    pack_generic(codes.subspan(8 * groups), width, out + groups * static_cast<std::size_t>(width));
}

void unpack_bits(const std::uint8_t* in, int width, std::span<std::uint32_t> codes) {
    // The group loads read up to 8 bytes past a group's first W - 1: keep the last groups,
    // which the input's length might not cover, on the byte-wise path.
    const auto w = static_cast<std::size_t>(width);
    const std::size_t bytes = packed_byte_count(codes.size(), width);
    std::size_t groups = 0;
    if (kLittle && bytes >= w + 8) groups = std::min(codes.size() / 8, (bytes - 8) / w);
    if (groups > 0) kUnpack[w - 1](in, groups, codes.data());
    unpack_generic(in + groups * w, width, codes.subspan(8 * groups));
}

bool padding_is_zero(std::span<const std::uint8_t> packed, std::uint64_t count, int width) {
    const std::uint64_t used_bits = count * static_cast<std::uint64_t>(width);
    const unsigned tail = static_cast<unsigned>(used_bits % 8);
    if (tail == 0 || packed.empty()) return true;
    return (packed.back() >> tail) == 0;
}

}  // namespace gradcodec
