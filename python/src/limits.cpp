#include "limits.hpp"

#include <gradcodec/error.hpp>
#include <gradcodec/stream.hpp>

namespace gradcodec::python {
namespace {

std::uint64_t cap_or_default(std::optional<std::int64_t> cap, const char* name,
                             std::uint64_t fallback) {
    if (!cap) return fallback;
    if (*cap <= 0) {
        fail(ErrorKind::usage, std::string(name) + " must be a positive number of bytes, not " +
                                   std::to_string(*cap));
    }
    return static_cast<std::uint64_t>(*cap);
}

}  // namespace

DecodeCaps::DecodeCaps(std::optional<std::int64_t> max_tensor_bytes,
                       std::optional<std::int64_t> max_total_bytes)
    : tensor_bytes_(
          cap_or_default(max_tensor_bytes, "max_tensor_bytes", default_max_tensor_bytes())),
      total_bytes_(cap_or_default(max_total_bytes, "max_total_bytes", kDefaultMaxTotalBytes)) {}

void DecodeCaps::take(const std::string& where, std::uint64_t elements, DType dtype) {
    const std::uint64_t size = dtype_size(dtype);
    if (elements > UINT64_MAX / size) fail(ErrorKind::limit, where + ": declares over 2^64 bytes");
    const std::uint64_t bytes = elements * size;
    if (bytes > tensor_bytes_) {
        fail(ErrorKind::limit, where + ": declares " + std::to_string(elements) + " elements (" +
                                   std::to_string(bytes) + " bytes), over the cap of " +
                                   std::to_string(tensor_bytes_) +
                                   " bytes per tensor (raise it with max_tensor_bytes=)");
    }
    if (bytes > total_bytes_ - spent_) {
        fail(ErrorKind::limit, where + ": brings the decoded arrays past the cap of " +
                                   std::to_string(total_bytes_) +
                                   " bytes in total (raise it with max_total_bytes=)");
    }
    spent_ += bytes;
}

}  // namespace gradcodec::python
