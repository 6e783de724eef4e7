#pragma once
// fft's select=topk, done while the tensor is transformed. A floor taken from a
// sample of chunks lets each block of chunks, still in cache, hand over only the bins that may
// be kept, with their values: no spectrum or score array of the whole tensor is written and
// read back. The same rule as select_by_weight, so the same bytes; where the sample misleads
// (the floor keeps too little weight, or far more bins than it predicted), it reports so and
// the caller takes the path through the whole spectrum.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>

#include "codec/fft_spectrum.hpp"
#include "common/scratch.hpp"
#include "common/vector_path.hpp"

namespace gradcodec {

// Uninitialised arrays, filled up to their counts: nothing is zero-filled first.
struct FftSelection {
    ScratchArray<std::uint64_t> kept;  // ascending bins
    std::size_t kept_count = 0;
    ScratchArray<float> values;  // Re, then Im unless the bin is real, per kept bin
    std::size_t value_count = 0;
    float largest = 0;  // largest_magnitude(x)

    std::span<const std::uint64_t> kept_bins() const { return {kept.get(), kept_count}; }
    std::span<const float> kept_values() const { return {values.get(), value_count}; }
};

// False when this path does not apply (too few chunks for a sample to pay) or the sample's
// floor fails; `out` is then unspecified.
bool select_while_transforming(const SpectrumLayout& s, std::span<const float> x,
                               std::uint64_t target, FftSelection& out);

// The compaction at the heart of it, below, runs on the VectorPath given: portable, with
// AVX-512's compress instructions, or with AVX2's compares and lane permutations. The codec
// takes the widest; tests compare them all.

// A run of bins and their scores; null scores stand for the bins' squared magnitudes, which
// the compaction then computes as score_chunk would at scale 1, while the bins are in registers.
struct BinRun {
    const float* scores;
    const std::complex<float>* spectrum;
    std::size_t count;
    std::uint64_t first_bin;
};
struct CandidateArrays {
    std::uint64_t* bins;
    std::uint32_t* bits;
    std::uint64_t* values;  // Re and Im of a bin, as the spectrum holds them
};
// Entries past the returned size that append_candidates may overwrite.
inline constexpr std::size_t kCompactSlack = 16;

// Appends at `size` each bin of the run whose score's magnitude pattern is >= floor, in order;
// returns the new size.
std::size_t append_candidates(VectorPath path, const BinRun& run, std::uint32_t floor,
                              const CandidateArrays& out, std::size_t size);

// Marks a real bin (DC or Nyquist) in a candidate's bin number, which is far below 2^63.
inline constexpr std::uint64_t kRealBin = std::uint64_t{1} << 63;

struct CandidateView {
    const std::uint64_t* bins;  // kRealBin set on real bins
    const std::uint32_t* bits;
    const std::uint64_t* values;
    std::size_t size;
};
// Where keep_candidates writes, and how much; it may write kCompactSlack entries past each
// count.
struct KeptArrays {
    std::uint64_t* bins;
    float* values;
    std::size_t bin_count = 0;
    std::size_t value_count = 0;
};

// Keeps, in order, the candidates whose pattern is above `cut_bits`, and those at it while
// `ties` weight is still owed (one per real bin, two per other): their bins, kRealBin cleared,
// and their values, Re then Im unless the bin is real.
void keep_candidates(VectorPath path, const CandidateView& in, std::uint32_t cut_bits,
                     std::uint64_t ties, KeptArrays& out);

}  // namespace gradcodec
