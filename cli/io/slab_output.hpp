#pragma once
// Large sparse tensors decoded a slab at a time (gradcodec/slab_decoder.hpp) straight into the
// output, so that decode holds one slab and the payload's kept elements, never the tensor: a
// stream of a few KB declaring 2^31 values makes an 8 GiB output, not an 8 GiB buffer.
// In HDF5 each slab is one chunk of the dataset and a slab without kept values is not written
// at all (the dataset's fill value, 0, reads back in its place); --raw output gets every byte.
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "gradcodec/slab_decoder.hpp"
#include "gradcodec/stream.hpp"
#include "gradcodec_hdf5/dump_writer.hpp"

namespace gradcodec::cli {

// The most bytes one slab holds (the HDF5 chunk size, at most).
inline constexpr std::uint64_t kSlabBytes = std::uint64_t{4} << 20;

// Slabs follow the tensor's element order: each is one index of every dimension before
// `split`, `rows` indices of `split` (fewer in the last slab of a run) and all of every later
// one. `chunk` is the largest slab's shape: at most kSlabBytes, whatever the shape (a shape
// whose last dimension alone is longer splits it).
struct SlabLayout {
    std::size_t split = 0;
    std::uint64_t rows = 1;
    std::vector<std::uint64_t> chunk;
};
SlabLayout slab_layout(std::span<const std::uint64_t> shape, std::size_t element_size);

// Writes every value of the tensor `decoder` holds to `out` (errors name it `output`), a slab
// at a time; all-zero slabs come from one zero buffer.
void write_raw_slabs(SlabDecoder& decoder, DType dtype, std::FILE* out, const std::string& output);

// Creates `record`'s dataset (its values from `decoder`) chunked in slabs, writing only the
// slabs that hold kept values.
void write_hdf5_slabs(hdf5::DumpWriter& writer, const TensorRecord& record, SlabDecoder& decoder);

}  // namespace gradcodec::cli
