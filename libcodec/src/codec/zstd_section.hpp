#pragma once
// One zstd frame per payload section, for codecs whose sections may or may not compress: the
// encoder keeps the frame only when it is smaller, the decoder bounds the declared size first.
#include <cstdint>
#include <span>
#include <vector>

#include "common/byte_io.hpp"
#include "common/scratch.hpp"

namespace gradcodec {

ScratchVector<std::uint8_t> zstd_compress_section(std::span<const std::uint8_t> raw, int level);

// Throws Error(damaged_stream) through `errors` when the frame is not exactly one valid frame
// declaring its content size, or declares more than `max_size` bytes.
// The size a frame declares, checked as zstd_decompress_section checks it, without decompressing:
// for a caller that caps its memory before it decodes.
std::uint64_t zstd_section_size(std::span<const std::uint8_t> frame, std::uint64_t max_size,
                                const ByteReader& errors);

ScratchVector<std::uint8_t> zstd_decompress_section(std::span<const std::uint8_t> frame,
                                                    std::uint64_t max_size,
                                                    const ByteReader& errors);

}  // namespace gradcodec
