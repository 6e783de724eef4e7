#pragma once
// The caps on decoded bytes that gradcodec.decode and read_stream take as max_tensor_bytes= and
// max_total_bytes=, with the CLI's defaults (gradcodec/stream.hpp). Checked against what a
// frame's or record's header declares, before the array is allocated.
#include <cstdint>
#include <optional>
#include <string>

#include <gradcodec/dtype.hpp>

namespace gradcodec::python {

class DecodeCaps {
  public:
    // None keeps the library's default; a cap must be a positive number of bytes (UsageError).
    DecodeCaps(std::optional<std::int64_t> max_tensor_bytes,
               std::optional<std::int64_t> max_total_bytes);
    // Throws Error(limit) when a tensor of `elements` `dtype` values is over the per-tensor cap
    // or would bring what this decode has allocated past the total cap; counts it otherwise.
    void take(const std::string& where, std::uint64_t elements, DType dtype);

  private:
    std::uint64_t tensor_bytes_;
    std::uint64_t total_bytes_;
    std::uint64_t spent_ = 0;
};

}  // namespace gradcodec::python
