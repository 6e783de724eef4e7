#pragma once
// fft's select=topk on one thread, done while the tensor is transformed. A floor taken from a
// sample of chunks lets each block of chunks, still in cache, hand over only the bins that may
// be kept, with their values: no spectrum or score array of the whole tensor is written and
// read back. The same rule as select_by_weight, so the same bytes; where the sample misleads
// (the floor keeps too little weight, or far more bins than it predicted), it reports so and
// the caller takes the path through the whole spectrum.
#include <cstdint>
#include <span>

#include "codec/fft_spectrum.hpp"
#include "common/scratch.hpp"

namespace gradcodec {

struct FftSelection {
    ScratchVector<std::uint64_t> kept;  // ascending bins
    ScratchVector<float> values;        // Re, then Im unless the bin is real, per kept bin
    float largest = 0;                  // largest_magnitude(x)
};

// False when this path does not apply (too few chunks for a sample to pay) or the sample's
// floor fails; `out` is then unspecified.
bool select_while_transforming(const SpectrumLayout& s, std::span<const float> x,
                               std::uint64_t target, FftSelection& out);

}  // namespace gradcodec
