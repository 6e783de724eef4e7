#pragma once
// A sparse payload's kept elements (codec id 4, format-spec/codec-sparse.md), read apart from
// the tensor they belong in: the whole decode scatters them into its output, the slab decoder
// (gradcodec/slab_decoder.hpp) into one range of elements at a time.
#include <cstdint>
#include <functional>
#include <span>

#include "common/scratch.hpp"
#include "gradcodec/tensor.hpp"

namespace gradcodec {

// A payload's kept count and its two sections' sizes as stored or decompressed, from its
// headers alone (nothing is decompressed or allocated), for a caller that caps a decode's
// memory first; a SparseKept holds the position section and 4 bytes per kept value. Throws
// Error(damaged_stream) as the decode does on a header it reads.
struct SparseKeptSize {
    std::uint64_t count = 0;
    std::uint64_t position_section = 0;
    std::uint64_t value_section = 0;
};
SparseKeptSize sparse_kept_size(const TensorMeta& meta, std::span<const std::uint8_t> payload);

class SparseKept {
  public:
    // Reads and checks the header, both sections and every value, in the decode's order and with
    // its messages; the positions are checked by visit(). `meta` must outlive the object.
    SparseKept(const TensorMeta& meta, std::span<const std::uint8_t> payload);
    std::uint64_t count() const { return count_; }
    std::span<const float> values() const { return values_; }  // in position order
    // Hands the kept elements to `sink` in ascending position order, in pieces: positions[i]
    // holds values[i]. Throws Error(damaged_stream) on a damaged position section, after the
    // sink has seen the positions before the damage.
    using Sink = std::function<void(std::span<const std::uint64_t> positions,
                                    std::span<const float> values)>;
    void visit(const Sink& sink) const;

  private:
    const TensorMeta& meta_;
    std::uint64_t count_ = 0;
    ScratchVector<std::uint8_t> positions_;  // the position section, decompressed
    ScratchVector<float> values_;
};

}  // namespace gradcodec
