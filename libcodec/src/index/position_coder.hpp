#pragma once
// Position sections: the ascending indices of the kept elements of an n-element tensor, coded
// as a bitmap or Golomb-Rice gaps (one parameter, or one per block of gaps), whichever is
// smallest for this set (sizes are computed exactly, never estimated). Elias-Fano is read but
// never written: Rice with the same parameter is never larger. Self-describing: the
// coder, k and its parameter travel in the section (format-spec/codec-sparse.md, "Position
// section").
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "common/byte_io.hpp"
#include "common/checked_size.hpp"
#include "common/scratch.hpp"

namespace gradcodec {

enum class PositionCoder : std::uint8_t {
    bitmap = 1,
    rice_gaps = 2,
    elias_fano = 3,
    rice_blocks = 4,
};

inline constexpr std::uint64_t kPositionHeaderBytes = 18;  // u8 coder, u64 k, u8 param, u64 L

// The data bytes (after the header) each coder would spend, with its best parameter.
struct PositionCosts {
    std::uint64_t bitmap = 0;
    std::uint64_t rice_gaps = 0;
    std::uint64_t elias_fano = 0;
    std::uint64_t rice_blocks = 0;
    unsigned rice_parameter = 0;
    unsigned elias_fano_low_bits = 0;
    unsigned rice_block_log2 = 0;
    ScratchVector<std::uint8_t> rice_block_parameters;  // each block's r at rice_block_log2
    PositionCoder best = PositionCoder::bitmap;  // smallest written coder; ties to the lower id
};

PositionCosts position_costs(std::span<const std::uint64_t> sorted, std::uint64_t n);

// `sorted` strictly increasing, every element < n (else Error(usage): a caller bug).
void encode_positions(std::span<const std::uint64_t> sorted, std::uint64_t n, ByteWriter& out);
// The same with a forced coder (its best parameter), for tests and measurements.
void encode_positions_with(PositionCoder coder, std::span<const std::uint64_t> sorted,
                           std::uint64_t n, ByteWriter& out);

// Decodes one section, handing the positions to `sink` in ascending pieces. Checks k <= n,
// every length against the bytes present, strict increase, every position < n, canonical
// padding, and allocates nothing proportional to k. Throws Error(damaged_stream).
using PositionSink = std::function<void(std::span<const std::uint64_t>)>;
std::uint64_t decode_position_pieces(ByteReader& in, std::uint64_t n, const PositionSink& sink);
// The same with any callable, held by reference so that the call allocates nothing.
template <class Sink>
std::uint64_t decode_positions(ByteReader& in, std::uint64_t n, Sink&& sink) {
    return decode_position_pieces(in, n, PositionSink(std::ref(sink)));
}
std::vector<std::uint64_t> decode_positions(ByteReader& in, std::uint64_t n);
// All the positions into `out` (cleared first), reusing its memory.
void decode_positions_into(ByteReader& in, std::uint64_t n, ScratchVector<std::uint64_t>& out);

struct PositionSectionInfo {
    PositionCoder coder = PositionCoder::bitmap;
    std::uint64_t count = 0;  // k
    unsigned parameter = 0;   // Rice parameter or Elias-Fano low bits
    std::uint64_t bits = 0;   // the whole section, header included, in bits
};

// Reads (and checks) the header, skips the data: for `inspect`.
PositionSectionInfo describe_positions(ByteReader& in, std::uint64_t n);

// The most bytes encode_positions can write for any subset of n positions: the encoder picks
// the smallest coder, so a bitmap's size bounds every choice.
inline std::uint64_t position_section_bound(std::uint64_t n) {
    return size_add(kPositionHeaderBytes, n / 8 + (n % 8 != 0 ? 1 : 0));
}

// log2 C(n, k): the information bound for a k-subset of n positions.
double log2_binomial(std::uint64_t n, std::uint64_t k);

}  // namespace gradcodec
