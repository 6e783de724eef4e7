#pragma once
// One pass over a tensor that gives what a range-float ladder is built from: the largest
// magnitude, which anchors the ladder, and a histogram of magnitudes, which the mantissa is
// chosen from. One pass instead of two, because on large tensors each pass is a trip through
// memory that costs about as much as the arithmetic.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace gradcodec {

// Bins of the magnitude's top 11 bits: the exponent and 3 mantissa bits, 8 bins per octave.
// Fine enough that a bin's centre stands for its values; coarse enough to build in one pass.
inline constexpr int kMagnitudeBinShift = 20;
inline constexpr std::size_t kMagnitudeBins = std::size_t{1} << (31 - kMagnitudeBinShift);
inline constexpr std::size_t kFirstNonFiniteBin = 0x7F800000u >> kMagnitudeBinShift;

struct MagnitudeSurvey {
    // The largest magnitude's bit pattern (sign cleared); >= 0x7F800000 when some value is
    // not finite.
    std::uint32_t max_bits = 0;
    bool has_histogram = false;
    std::array<std::uint64_t, kMagnitudeBins> counts{};  // all zero without a histogram
};

// The survey of `values`, with the histogram only when `histogram` is set (the max alone is
// a vector scan, several times cheaper). Split across codec_threads(); exact counts and the
// same max whatever the split.
MagnitudeSurvey survey_magnitudes(std::span<const float> values, bool histogram);

}  // namespace gradcodec
