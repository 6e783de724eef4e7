#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "common/bit_pack.hpp"

using namespace gradcodec;

TEST_CASE("bit-packed codes of every width 1..32 round-trip", "[bit_pack]") {
    std::mt19937 rng(7);
    for (int width = 1; width <= 32; ++width) {
        for (const std::size_t n : {0u, 1u, 7u, 8u, 9u, 100u, 1031u}) {
            INFO("width " << width << ", " << n << " codes");
            const std::uint64_t mask = width == 32 ? 0xFFFFFFFFull : (1ull << width) - 1;
            std::vector<std::uint32_t> codes(n);
            for (auto& c : codes) c = static_cast<std::uint32_t>(rng() & mask);
            std::vector<std::uint8_t> packed(packed_byte_count(n, width));
            pack_bits(codes, width, packed.data());
            CHECK(padding_is_zero(packed, n, width));
            std::vector<std::uint32_t> back(n);
            unpack_bits(packed.data(), width, back);
            CHECK(back == codes);
        }
    }
}

TEST_CASE("bit packing is LSB-first: code i starts at bit i*width", "[bit_pack]") {
    const std::vector<std::uint32_t> codes{0x5, 0x3, 0x7};  // 3-bit codes 101 011 111
    std::vector<std::uint8_t> packed(packed_byte_count(codes.size(), 3));
    pack_bits(codes, 3, packed.data());
    REQUIRE(packed.size() == 2);
    CHECK(packed[0] == 0b11011101);  // bits 0-2 = 101, 3-5 = 011, 6-7 = low two bits of 111
    CHECK(packed[1] == 0b00000001);  // the last bit of 111, then zero padding
}

TEST_CASE("non-zero padding bits are detected", "[bit_pack]") {
    std::vector<std::uint8_t> packed{0x00, 0x02};  // 3 codes of 3 bits use bit 0 of byte 1 only
    CHECK_FALSE(padding_is_zero(packed, 3, 3));
    packed[1] = 0x01;
    CHECK(padding_is_zero(packed, 3, 3));
}

TEST_CASE("packed bytes equal a bit-by-bit reference for every width and length", "[bit_pack]") {
    std::mt19937 rng(11);
    for (int width = 1; width <= 32; ++width) {
        for (std::size_t n = 0; n <= 80; n += (n < 20 ? 1 : 7)) {
            std::vector<std::uint32_t> codes(n);
            for (auto& c : codes) c = static_cast<std::uint32_t>(rng());  // high bits dropped
            std::vector<std::uint8_t> expected(packed_byte_count(n, width), 0);
            for (std::size_t i = 0; i < n; ++i) {
                for (int b = 0; b < width; ++b) {
                    const std::size_t bit = i * static_cast<std::size_t>(width) + b;
                    if ((codes[i] >> b) & 1u)
                        expected[bit / 8] |= static_cast<std::uint8_t>(1u << (bit % 8));
                }
            }
            std::vector<std::uint8_t> packed(expected.size());
            pack_bits(codes, width, packed.data());
            INFO("width " << width << ", " << n << " codes");
            REQUIRE(packed == expected);
            std::vector<std::uint32_t> back(n);
            unpack_bits(packed.data(), width, back);
            const std::uint64_t mask = width == 32 ? 0xFFFFFFFFull : (1ull << width) - 1;
            for (std::size_t i = 0; i < n; ++i) REQUIRE(back[i] == (codes[i] & mask));
        }
    }
}
