#pragma once
// The range-based N-bit float of SuperNeurons (Algorithm 1), in gradcodec's sign-magnitude
// variant (format-spec/codec-rangeq.md). Magnitude code c in 1..K stands for the binary32
// whose bit pattern is (pbase + c - 1) << (23 - m): each power of two holds 2^m codes, so the
// step doubles every 2^m codes, fine near zero and coarse near the top. Code 0 is an exact
// zero. A full N-bit code is sign << (N - 1) | c, with K = 2^(N-1) - 1.
#include <cstdint>
#include <optional>
#include <span>

#include "common/vector_path.hpp"

namespace gradcodec {

inline constexpr int kRangeMinBits = 2;
inline constexpr int kRangeMaxBits = 16;
inline constexpr int kRangeMaxMantissa = 23;

enum class Rounding : std::uint8_t { nearest = 0, truncate = 1 };

// A "key" is a magnitude's bit pattern shifted right by 23 - m: the exponent and the top m
// mantissa bits. Codes 1..K are the consecutive keys pbase..pbase + K - 1.
struct RangeLadder {
    int bits = 8;             // N, the sign bit included
    int mantissa = 3;         // m
    std::uint32_t pbase = 1;  // the key of code 1, whose value is eps

    int shift() const { return 23 - mantissa; }
    std::uint32_t top_code() const { return (1u << (bits - 1)) - 1; }  // K
    std::uint32_t top_key() const { return pbase + top_code() - 1; }
    float eps() const;  // the value of magnitude code 1
    float top() const;  // the value of magnitude code K
};

// The largest key of a finite float for m mantissa bits.
std::uint32_t max_finite_key(int mantissa);

// The smallest m whose finite keys can hold all K codes of an N-bit ladder (0 for N <= 8).
int min_mantissa(int bits);

// Decoders call this on every ladder read from a payload: N and m in range, pbase >= 1 and
// the top key finite, so no code decodes to inf or NaN.
bool ladder_is_valid(const RangeLadder& ladder);

// gradcodec's default: the top code is max_abs rounded as `rounding` does, eps follows.
// Requires min_mantissa(bits) <= mantissa <= 23 and a finite max_abs.
RangeLadder ladder_from_max(int bits, int mantissa, float max_abs, Rounding rounding);

// The paper's mode: code 1 is eps truncated to m mantissa bits. nullopt when eps is below the
// finest key for m or the ladder's top would pass the largest finite float.
std::optional<RangeLadder> ladder_from_eps(int bits, int mantissa, double eps);

// Encodes finite values to N-bit codes (non-finite input gets some code; callers handle it):
// magnitudes at or above the top go to K, magnitudes below eps go to 0 or eps, whichever is
// nearer (ties to eps). Code is std::uint8_t, std::uint16_t or std::uint32_t.
// Runs on the widest VectorPath the CPU has.
template <typename Code>
void encode_range_floats(const RangeLadder& ladder, Rounding rounding, std::span<const float> in,
                         Code* out);

// The codes by `path`, for tests and benchmarks: the baseline (SSE2) build defines the codes
// and the others must match it. A path the CPU lacks runs the portable code.
template <typename Code>
void encode_range_floats_on(VectorPath path, const RangeLadder& ladder, Rounding rounding,
                            std::span<const float> in, Code* out);

// Decodes N-bit codes (bits above N must be zero). Every code of a valid ladder is finite.
template <typename Code>
void decode_range_floats(const RangeLadder& ladder, const Code* in, std::span<float> out);

}  // namespace gradcodec
