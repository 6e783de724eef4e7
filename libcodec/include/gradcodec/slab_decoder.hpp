#pragma once
// Decoding a tensor a range of elements ("a slab") at a time, for a consumer that writes the
// values out as they come (an HDF5 dataset chunk by chunk, a file): a tensor of 2^31 elements
// then never needs a buffer of 2^31 elements, and what a decode holds depends on the payload,
// not on the tensor's declared size. Only the sparse payload (codec id 4: topk, threshold, dgc,
// sidco) decodes so: it is a list of kept elements, zero elsewhere. The other codecs need the
// whole tensor at once (a spectrum, a factorisation, ranked scales, a position draw over the
// whole tensor) and decode through decode_tensor.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "gradcodec/tensor.hpp"

// Everything declared here is the shared library's API; the rest of it stays hidden.
#pragma GCC visibility push(default)
namespace gradcodec {

// Whether payloads of this codec id decode slab by slab (SlabDecoder).
bool decodes_in_slabs(std::uint16_t codec_id);

class SlabDecoder {
  public:
    // The bytes a SlabDecoder of this payload holds, besides the caller's slabs, read from the
    // payload's headers alone (nothing is decompressed or allocated), for a caller that caps a
    // decode's memory before it starts: the payload's sections as decompressed, and its kept
    // values (binary32) and positions (u64): at most 16 bytes per kept value plus n/8 + 4114
    // bytes, and about 12 bytes per kept value when the sections are small. (A tensor stored
    // in f16, bf16 or f64, or a misaligned f32 slab, adds a binary32 copy of the largest slab.)
    // Throws Error(usage) for a codec that does not decode in
    // slabs, and Error(damaged_stream), naming meta.name, on a damaged header.
    static std::uint64_t working_bytes(std::uint16_t codec_id, const TensorMeta& meta,
                                       std::span<const std::uint8_t> payload);

    // Decodes and checks the whole payload, as decode_tensor does (the same errors), and keeps
    // its kept elements: once constructed, next() never finds damage, so a consumer writes
    // nothing of a payload that fails. The payload may be freed afterwards.
    SlabDecoder(std::uint16_t codec_id, TensorMeta meta, std::span<const std::uint8_t> payload);
    SlabDecoder(SlabDecoder&&) noexcept;
    SlabDecoder& operator=(SlabDecoder&&) noexcept;
    ~SlabDecoder();

    // Fills `out` with the next out.size() / dtype_size(dtype) elements in element order, in
    // the tensor's dtype: the bytes decode_tensor writes there. Returns how many kept elements
    // the slab holds; with 0 every value in it is +0.0. Throws Error(usage) when `out` holds a
    // partial element or runs past the tensor's end.
    std::uint64_t next(std::span<std::byte> out);
    // The position of the next kept element, or element_count() when none is left: every
    // element from position() up to it is +0.0, so a consumer whose output already reads as
    // zeros (an HDF5 dataset's fill value) may skip() them instead of decoding them.
    std::uint64_t next_kept() const;
    // Moves past `count` elements without decoding them (kept ones included); Error(usage) past
    // the tensor's end.
    void skip(std::uint64_t count);
    std::uint64_t position() const;       // elements decoded so far
    std::uint64_t element_count() const;  // the tensor's

  private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace gradcodec
#pragma GCC visibility pop
