#pragma once
// The three position coders behind position_coder.hpp. Each encoder writes only the data
// bits; each decoder checks its own data and pushes positions through a PositionEmitter.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/scratch.hpp"
#include "common/vector_path.hpp"
#include "index/bit_stream.hpp"
#include "index/position_coder.hpp"

namespace gradcodec {

// Buffers decoded positions and checks the invariants every coder must honour.
class PositionEmitter {
  public:
    PositionEmitter(std::uint64_t n, const PositionSink& sink, const BitReader& reader)
        : n_(n), sink_(sink), reader_(reader) {}
    void push(std::uint64_t p) {
        if (p >= n_)
            reader_.damaged("position " + std::to_string(p) + " >= element count " +
                            std::to_string(n_));
        if (count_ > 0 && p <= last_)
            reader_.damaged("positions are not strictly increasing at " + std::to_string(p));
        last_ = p;
        ++count_;
        buffer_[fill_++] = p;
        if (fill_ == buffer_.size()) flush();
    }
    void flush() {
        if (fill_ > 0) sink_(std::span<const std::uint64_t>(buffer_.data(), fill_));
        fill_ = 0;
    }
    std::uint64_t count() const { return count_; }

  private:
    std::uint64_t n_;
    const PositionSink& sink_;
    const BitReader& reader_;
    std::array<std::uint64_t, 4096> buffer_{};
    std::size_t fill_ = 0;
    std::uint64_t count_ = 0;
    std::uint64_t last_ = 0;
};

inline std::uint64_t bytes_for_bits(std::uint64_t bits) {
    return bits / 8 + (bits % 8 != 0);
}

std::uint64_t bitmap_data_bytes(std::uint64_t n);
ScratchVector<std::uint8_t> encode_bitmap(std::span<const std::uint64_t> sorted, std::uint64_t n);
void decode_bitmap(BitReader& in, std::uint64_t n, std::uint64_t k, PositionEmitter& out);

// Gaps g_i = p_i - p_{i-1} - 1 (p_{-1} = -1), each as (g >> r) zeros, a one, then r low bits.
// Blocked: blocks of 2^b gaps (b in 5..8 written, 5..16 read), each led by its own 6-bit r,
// which follows the local density of clustered positions.
inline constexpr unsigned kRiceBlockParameterBits = 6;
inline constexpr unsigned kRiceBlockLog2Min = 5;
inline constexpr unsigned kRiceBlockLog2Max = 8;
inline constexpr unsigned kRiceBlockLog2ReadMax = 16;

struct RiceChoice {
    unsigned r;
    std::uint64_t bits;
};

// Exact data bits of the best single-parameter code and of the best blocked code, with each
// block's parameter in the best blocked code, so that encoding it need not find them again.
struct RiceCosts {
    unsigned parameter = 0;
    std::uint64_t bits = 0;
    unsigned block_log2 = kRiceBlockLog2Min;
    std::uint64_t block_bits = 0;
    ScratchVector<std::uint8_t> block_parameters;
};
// Every VectorPath gives the same costs; tests compare them.
RiceCosts rice_costs(std::span<const std::uint64_t> sorted, VectorPath path = widest_vector_path());

// `bytes`, when known (from rice_costs), sizes the output once.
ScratchVector<std::uint8_t> encode_rice(std::span<const std::uint64_t> sorted, unsigned r,
                                        std::size_t bytes = 0);
void decode_rice(BitReader& in, std::uint64_t n, std::uint64_t k, unsigned r, PositionEmitter& out);
// `parameters` holds each block's r as rice_costs chose it; when empty, they are found here.
ScratchVector<std::uint8_t> encode_rice_blocks(std::span<const std::uint64_t> sorted,
                                               unsigned log2_block,
                                               std::span<const std::uint8_t> parameters = {},
                                               std::size_t bytes = 0);
void decode_rice_blocks(BitReader& in, std::uint64_t n, std::uint64_t k, unsigned log2_block,
                        PositionEmitter& out);

// Elias-Fano with l low bits: k*l low bits, then ((n-1) >> l) + k upper bits (0 when k = 0).
std::uint64_t elias_fano_data_bits(std::uint64_t n, std::uint64_t k, unsigned l);
unsigned best_elias_fano_low_bits(std::uint64_t n, std::uint64_t k);
ScratchVector<std::uint8_t> encode_elias_fano(std::span<const std::uint64_t> sorted,
                                              std::uint64_t n, unsigned l);
void decode_elias_fano(BitReader& in, std::uint64_t n, std::uint64_t k, unsigned l,
                       PositionEmitter& out);

}  // namespace gradcodec
