#pragma once
// The bytes around a frame's payload: header and checksum (format-spec/FRAME.md). Knows
// nothing of codecs; codec/frame_codec.cpp fills and reads the payload.
#include <cstdint>
#include <span>

#include "gradcodec/frame.hpp"

namespace gradcodec {

// Header bytes for this shape: the fixed part plus 8 per dimension when the rank is not 1.
std::size_t frame_header_size(std::size_t rank);

// Writes the header for `info` (its shape decides the rank written) at the start of `out`,
// which must hold frame_header_size(info.shape.size()) bytes.
void write_frame_header(const FrameInfo& info, std::span<std::uint8_t> out);

// Writes the checksum of frame[0, size - 8) into its last 8 bytes.
void seal_frame(std::span<std::uint8_t> frame);

// Parses and checks a whole frame (header, sizes, checksum). Error(damaged_stream) otherwise.
FrameInfo parse_frame(std::span<const std::uint8_t> frame);

}  // namespace gradcodec
