#pragma once
// The frames of a filtered dataset's chunks, encoded by repack itself instead of inside HDF5's
// filter pipeline, which runs one chunk at a time on the writing thread. They are the bytes the
// filter would store: each chunk is cut from the row-major values, padded with zeros (HDF5's
// default fill value) up to the full chunk, and encoded into one frame by the same codec.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gradcodec/codec.hpp"

namespace gradcodec::cli {

struct ChunkFrame {
    std::vector<std::uint64_t> offset;  // the chunk's first element, per dimension
    std::vector<std::uint8_t> frame;
};

// `chunk_dims` as chunk_dims_for() makes them: whole trailing dimensions, one dimension cut,
// and ones before it, so every chunk is one run of the values. Errors from the codec name
// `where`.
std::vector<ChunkFrame> encode_chunk_frames(const Codec& codec, DType dtype,
                                            const std::vector<std::uint64_t>& shape,
                                            const std::vector<std::uint64_t>& chunk_dims,
                                            std::span<const std::byte> values,
                                            const std::string& where);

}  // namespace gradcodec::cli
