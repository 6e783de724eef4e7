#pragma once
// Caps on the bytes a command holds per tensor and writes in total, so a small hostile input
// (a 188-byte stream, a 1 KB HDF5 file declaring 1e9 floats) is refused up front instead of
// exhausting memory or disk. Exceeding one is Error(limit), exit 3, naming the flag to raise.
#include <cstdint>
#include <string>

namespace gradcodec::hdf5 {

class ByteBudget {
  public:
    // 0 keeps the library's default (default_max_tensor_bytes, kDefaultMaxTotalBytes in
    // gradcodec/stream.hpp, shared with the Python package).
    explicit ByteBudget(std::uint64_t tensor_bytes = 0, std::uint64_t total_bytes = 0);
    // Refuses a tensor of `elements` x `element_size` bytes over the per-tensor cap.
    void check_tensor(const std::string& where, std::uint64_t elements,
                      std::size_t element_size) const;
    // Refuses `work` ("fitting") on a tensor of `elements` when what it holds at once,
    // `bytes_per_element` for each, is over the per-tensor cap.
    void check_working_memory(const std::string& where, const std::string& work,
                              std::uint64_t elements, std::size_t bytes_per_element) const;
    // Refuses `work` ("decoding it in slabs") when the `bytes` it holds at once are over the
    // per-tensor cap.
    void check_memory(const std::string& where, const std::string& work, std::uint64_t bytes) const;
    // check_tensor, then counts the bytes against the total cap.
    void take(const std::string& where, std::uint64_t elements, std::size_t element_size);
    // Counts the bytes against the total cap only: for a tensor written out a slab at a time,
    // whose working memory check_memory caps instead.
    void take_output(const std::string& where, std::uint64_t elements, std::size_t element_size);
    std::uint64_t tensor_cap() const { return tensor_bytes_; }

  private:
    std::uint64_t tensor_bytes_;
    std::uint64_t total_bytes_;
    std::uint64_t spent_ = 0;
};

}  // namespace gradcodec::hdf5
