#pragma once
// Exact (weighted) top-k on the device: a radix select over the magnitude bit patterns of the
// scores (three digit passes of 11, 11 and 9 bits, block-local shared-memory histograms), then
// a prefix-sum compaction of the kept indices. The ranking is the CPU's: magnitude pattern
// descending, ties to the lower index, so with unit weights the result equals select_topk
// and with fft bin weights it equals select_by_weight (codec/frequency_selection.hpp).
#include <cstdint>

namespace gradcodec::cuda {

// The weight of element g: 1 for every element when bins == 0, else the fft codec's rule
// (bins of `full` chunks of length `chunk`, then a tail of length `tail`; DC and even-length
// Nyquist bins weigh 1, others 2).
struct WeightRule {
    std::uint64_t bins = 0;
    std::uint64_t full = 0;
    std::uint64_t chunk = 0;
    std::uint64_t tail = 0;
};

std::uint64_t total_weight(const WeightRule& rule, std::uint64_t n);

// Writes to out (device, room for n) the ascending indices of the shortest prefix of the
// ranking whose weight reaches `target` (all n when the total is below it; none for 0) and
// returns how many. `scores` is device memory. When `cut_bits` is given and something is
// kept, it receives the magnitude pattern of the last kept element (select_topk's threshold).
std::uint64_t select_by_weight_on_device(const float* scores, std::uint64_t n,
                                         const WeightRule& rule, std::uint64_t target,
                                         std::uint64_t* out, std::uint32_t* cut_bits = nullptr);

// Writes the ascending indices of the elements whose magnitude pattern is >= `lowest` (the
// threshold selector's |x| > T is lowest = bits_above(T)) and returns how many.
std::uint64_t select_at_least_on_device(const float* x, std::uint64_t n, std::uint32_t lowest,
                                        std::uint64_t* out);

// Whether any element is inf or NaN.
bool any_nonfinite_on_device(const float* x, std::uint64_t n);

}  // namespace gradcodec::cuda
