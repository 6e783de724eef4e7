#pragma once
// A frame is one tensor's self-describing unit: what a training system sends per bucket and
// what an HDF5 chunk holds. Header (magic, version, dtype, codec id, element count, optional
// shape), the codec's payload, then an XXH3-64 checksum of everything before it
// (format-spec/FRAME.md). 28 bytes of overhead for a flat tensor.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gradcodec/codec.hpp"
#include "gradcodec/dtype.hpp"

// Everything declared here is the shared library's API; the rest of it stays hidden.
#pragma GCC visibility push(default)
namespace gradcodec {

inline constexpr std::uint8_t kFrameMajor = 1;
inline constexpr std::uint8_t kFrameMinor = 0;
inline constexpr std::size_t kFrameHeaderBytes = 20;  // fixed part, before any shape
inline constexpr std::size_t kFrameChecksumBytes = 8;
inline constexpr std::size_t kFrameMaxRank = 32;

struct FrameInfo {
    std::uint16_t codec_id = 0;
    DType dtype = DType::f32;
    std::uint64_t element_count = 0;
    std::vector<std::uint64_t> shape;  // {element_count} for a flat frame
    std::size_t payload_offset = 0;
    std::size_t payload_size = 0;
};

// The most bytes a frame of this tensor can take with this codec. Throws Error(bad_input) when
// the shape or the bound overflows 64 bits.
std::uint64_t max_frame_size(const Codec& codec, const TensorMeta& meta);

// Encodes `values` into one frame in `out`, returning its size. Shapes of rank 1 are not
// repeated in the frame. With a non-empty `residual` (meta.byte_count() bytes) also writes
// values - decode(frame) there. Throws Error(limit) when `out` is too small, Error(usage) when
// any two of `values`, `out` and `residual` share memory.
std::size_t encode_frame_into(const Codec& codec, const TensorMeta& meta,
                              std::span<const std::byte> values, std::span<std::uint8_t> out,
                              std::span<std::byte> residual = {});
// The same with both of error feedback's outputs, either of which may be empty (Feedback).
std::size_t encode_frame_into(const Codec& codec, const TensorMeta& meta,
                              std::span<const std::byte> values, std::span<std::uint8_t> out,
                              const Feedback& feedback);
std::vector<std::uint8_t> encode_frame(const Codec& codec, const TensorMeta& meta,
                                       std::span<const std::byte> values,
                                       std::span<std::byte> residual = {});

// Checks magic, version, flags, sizes and the checksum; never reads past `frame`. Throws
// Error(damaged_stream) on anything else, naming what is wrong.
FrameInfo read_frame_info(std::span<const std::uint8_t> frame);

// Decodes a checked frame into `out`, which must hold element_count values of the frame's
// dtype (Error(usage) otherwise). Throws Error(damaged_stream) on damage.
void decode_frame_into(std::span<const std::uint8_t> frame, std::span<std::byte> out);

}  // namespace gradcodec
#pragma GCC visibility pop
