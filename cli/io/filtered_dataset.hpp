#pragma once
// Datasets filtered by gradcodec's HDF5 filter: the dataset creation list that repack writes
// them with, and the frames their chunks hold, for inspect.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gradcodec_h5z_params.hpp"
#include "gradcodec_hdf5/hdf5_handle.hpp"

namespace gradcodec::cli {

using namespace gradcodec::hdf5;  // HDF5 dumps: gradcodec_hdf5_io (hdf5/)

// Tensors of up to this many elements are one chunk; larger ones are cut along their leading
// dimensions (64 MiB of f32, well under HDF5's 4 GiB chunk limit).
inline constexpr std::uint64_t kDefaultChunkElements = std::uint64_t{1} << 24;

// Registers the filter in this process (no HDF5_PLUGIN_PATH needed). Error(io) on failure.
void register_gradcodec_filter();

// Chunk dims for `shape`: the whole tensor when it has at most `max_elements` elements, else
// whole trailing dimensions and as many leading rows as fit.
std::vector<std::uint64_t> chunk_dims_for(const std::vector<std::uint64_t>& shape,
                                          std::uint64_t max_elements);

// A dataset creation list: chunked as given, filtered by gradcodec with `params` (mandatory:
// a chunk the codec cannot encode fails the write instead of being stored raw).
Hid filtered_creation_list(const std::vector<std::uint64_t>& chunk_dims,
                           const h5z::FilterParams& params, const std::string& where);

// The gradcodec filter's parameters when gradcodec is the dataset's only filter.
std::optional<h5z::FilterParams> gradcodec_filter_of(hid_t dataset, const std::string& where);

// The stored bytes of every chunk (each one frame), in chunk index order.
std::vector<std::vector<std::uint8_t>> read_chunk_frames(hid_t dataset, const std::string& where);

// HDF5 clears its error stack at the next call, before a caller can read it. From this call on,
// whenever an HDF5 call fails, the message gradcodec's filter left there is kept for
// last_filter_error(), so a refused chunk is reported with the codec's reason.
void keep_filter_errors();
std::string last_filter_error();  // "" when the filter reported nothing

}  // namespace gradcodec::cli
