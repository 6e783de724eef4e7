#pragma once
// Stochastic rounding onto a bucket's grid of levels, as QSGD and TernGrad define it
// (format-spec/codec-qsgd.md §2): each r = |x| · (s / scale) is rounded to one of its two
// neighbouring integers with the probabilities that make the expectation exact, the coin for
// element i being draw i of the record's seed. The result is a signed level in [-s, s].
#include <cstdint>
#include <span>

namespace gradcodec {

enum class BucketScale : std::uint8_t { l2_norm = 0, max_magnitude = 1 };

// The bucket's scale, rounded to binary32 (nearest): its L2 norm or its largest magnitude.
// `values` are finite.
float bucket_scale(BucketScale kind, std::span<const float> values);

// Levels for `values`, elements [first, first + values.size()) of the tensor, on the grid of
// `scale` with s levels. A zero scale gives all zeros.
void round_to_levels(std::span<const float> values, float scale, std::uint32_t s,
                     std::uint64_t seed, std::uint64_t first, std::span<std::int32_t> levels);

// The value a level stands for: sgn · (scale · |level|) / s, the product and the quotient each
// rounded to binary64, the quotient then to binary32.
float level_value(float scale, std::int32_t level, std::uint32_t s);

}  // namespace gradcodec
