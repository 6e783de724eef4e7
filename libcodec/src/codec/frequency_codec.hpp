#pragma once
// What the two frequency codecs (fft, dct) share: their keys, how a tensor is cut into
// chunks, and the payload header (format-spec/codec-fft.md, codec-dct.md).
#include <cstdint>
#include <functional>
#include <span>

#include "codec/frequency_selection.hpp"
#include "common/byte_io.hpp"
#include "gradcodec/codec.hpp"
#include "quant/value_coder.hpp"

namespace gradcodec {

constexpr std::uint32_t kMaxChunk = std::uint32_t{1} << 24;
constexpr int kPaperValueBits = 10;  // SuperNeurons' N for its range-based floats

// Default chunks, chosen by measurement (bench/fft_codec.cpp and the rel L2 surveys in
// format-spec/codec-fft.md and codec-dct.md).
inline constexpr std::uint32_t kFftDefaultChunk = 256;
inline constexpr std::uint32_t kDctDefaultChunk = 64;

struct FrequencyParams {
    double density = 0.15;  // the paper's 1 - θ, θ = 0.85
    std::uint32_t chunk = 0;
    FrequencySelector selector = FrequencySelector::topk;
    ValueCoderParams values;
};

// density=, chunk=, select=, and the value coder's keys (rangeq at bits=10 by default, the
// paper's N).
FrequencyParams parse_frequency_params(const CodecSpec& spec, std::uint32_t default_chunk);

// Full chunks of `chunk` values, then a tail of n mod chunk values transformed at its own
// length (so the kept scalars of all chunks add up to exactly n at density 1).
struct ChunkLayout {
    ChunkLayout(std::uint64_t count, std::uint32_t chunk_size)
        : n(count), chunk(chunk_size), full(count / chunk_size), tail(count % chunk_size) {}
    std::uint64_t n;
    std::uint64_t chunk;
    std::uint64_t full;  // number of full chunks
    std::uint64_t tail;  // length of the last, shorter chunk; 0 when there is none
};

// The header every frequency payload starts with: u8 flags (0), u32 chunk, f64 the density
// asked for (informational: decoding never needs it).
struct FrequencyHeader {
    std::uint32_t chunk = 0;
    double density = 0.0;
};
void write_frequency_header(ByteWriter& out, const FrequencyHeader& header);
FrequencyHeader read_frequency_header(ByteReader& in);

constexpr std::uint64_t kFrequencyHeaderBytes = 13;

// The scalars to keep: the top-k selector's k for (n, density), so fft, dct and topk keep
// the same number of scalars at the same density.
std::uint64_t kept_scalar_target(double density, std::uint64_t n);

// The bit split for `inspect`: header and positions count as position bits, the value section
// (the rest of the payload) as value bits. `coefficients` maps n to the index space;
// `scalars` counts the real scalars that the kept coefficients carry.
// The payload of both frequency codecs: header, positions of the kept coefficients among
// `coefficient_count`, their values. A non-finite input spreads over its chunk's
// coefficients, which then rank first, so checking the kept values catches it without a
// separate pass over the input; `transform` ("FFT", "DCT") names the overflow otherwise.
void write_frequency_payload(const FrequencyParams& params, const TensorMeta& meta,
                             std::span<const float> x, std::span<const std::uint64_t> kept,
                             std::uint64_t coefficient_count, std::span<const float> values,
                             const EncodeOptions& options, const char* transform, ByteOutput& out);
// The same, given largest_magnitude(x) (an encoder that reads x anyway computes it on the way).
void write_frequency_payload(const FrequencyParams& params, const TensorMeta& meta,
                             std::span<const float> x, float largest_of_x,
                             std::span<const std::uint64_t> kept, std::uint64_t coefficient_count,
                             std::span<const float> values, const EncodeOptions& options,
                             const char* transform, ByteOutput& out);

// max |x| as the largest magnitude bit pattern over every value (the max of the patterns of
// any split of x).
float largest_magnitude(std::span<const float> x);

// Header, positions among `coefficients`, and a value section of at most `scalars` values.
std::uint64_t frequency_payload_bound(const FrequencyParams& params, std::uint64_t coefficients,
                                      std::uint64_t scalars, const EncodeOptions& options);

PayloadStats describe_frequency_payload(
    const TensorMeta& meta, std::span<const std::uint8_t> payload, const char* what,
    const std::function<std::uint64_t(const ChunkLayout&)>& coefficients,
    const std::function<std::uint64_t(const ChunkLayout&, std::span<const std::uint64_t>)>&
        scalars);

}  // namespace gradcodec
