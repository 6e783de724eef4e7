#pragma once
// Positions shared by every rank, for transports that sum a sparse form instead of gathering
// it: random-k's seeded positions (the draw the randomk codec records only the seed of), and
// the format's position section, which carries a leader's chosen positions to its peers.
#include <cstdint>
#include <span>
#include <vector>

#pragma GCC visibility push(default)
namespace gradcodec {

// The k positions of [0, n) that randomk draws from `seed` (format-spec/codec-randomk.md §2),
// ascending. Throws Error(usage) when k > n.
std::vector<std::uint64_t> random_positions(std::uint64_t n, std::uint64_t k, std::uint64_t seed);

// A position section (format-spec/codec-sparse.md §2) for strictly increasing positions below
// n, in the smallest of its coders. Throws Error(usage) on positions that are not.
std::vector<std::uint8_t> encode_position_section(std::span<const std::uint64_t> sorted,
                                                  std::uint64_t n);

// The positions of exactly one section. Throws Error(damaged_stream) on damage.
std::vector<std::uint64_t> decode_position_section(std::span<const std::uint8_t> section,
                                                   std::uint64_t n);

}  // namespace gradcodec
#pragma GCC visibility pop
