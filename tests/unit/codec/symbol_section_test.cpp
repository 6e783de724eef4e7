// The stochastic quantisers' symbol section: what encode_symbols writes, decode_symbols reads
// back, whichever coding it picks, up to the largest symbols an alphabet of 2^32 - 1 allows.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "codec/symbol_section.hpp"
#include "common/byte_io.hpp"

using namespace gradcodec;

namespace {

std::vector<std::uint32_t> round_trip(const std::vector<std::uint32_t>& symbols,
                                      std::uint32_t alphabet, std::uint8_t& mode) {
    std::vector<std::uint8_t> bytes;
    ByteWriter w(bytes);
    encode_symbols(symbols, alphabet, w);
    mode = bytes.at(0);
    ByteReader r(bytes, "t", "symbol section");
    std::vector<std::uint32_t> back(symbols.size());
    decode_symbols(r, alphabet, back);
    r.expect_end();
    return back;
}

}  // namespace

TEST_CASE("symbol sections round-trip in every coding, short and long gamma codes alike",
          "[symbols]") {
    std::mt19937_64 rng(5);
    std::geometric_distribution<std::uint32_t> small(0.6);
    // Mostly small symbols (gamma wins), with a few whose gamma codes exceed one 56-bit write.
    std::vector<std::uint32_t> mixed(20011);
    for (auto& s : mixed) s = small(rng);
    for (std::size_t i = 0; i < mixed.size(); i += 997)
        mixed[i] = std::uint32_t{0xfffffffd} - static_cast<std::uint32_t>(i);
    std::uint8_t mode = 0;
    REQUIRE(round_trip(mixed, 0xffffffffu, mode) == mixed);
    CHECK((mode & ~kSymbolZstdFlag) == static_cast<std::uint8_t>(SymbolCoding::gamma));

    std::vector<std::uint32_t> trits(9999);
    for (auto& s : trits) s = static_cast<std::uint32_t>(rng() % 3);
    REQUIRE(round_trip(trits, 3, mode) == trits);
    CHECK((mode & ~kSymbolZstdFlag) == static_cast<std::uint8_t>(SymbolCoding::base3));

    std::vector<std::uint32_t> flat(5000);
    for (auto& s : flat) s = static_cast<std::uint32_t>(rng() % 1000);
    REQUIRE(round_trip(flat, 1000, mode) == flat);
    CHECK((mode & ~kSymbolZstdFlag) == static_cast<std::uint8_t>(SymbolCoding::fixed_width));

    for (const std::uint32_t one : {0u, 1u, 0x0fffffffu, 0x10000000u, 0xfffffffeu}) {
        const std::vector<std::uint32_t> single{one};
        REQUIRE(round_trip(single, 0xffffffffu, mode) == single);
    }
}
