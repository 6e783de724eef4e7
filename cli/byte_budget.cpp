#include "byte_budget.hpp"

#include <unistd.h>

#include <algorithm>

#include "gradcodec/error.hpp"

namespace gradcodec::cli {
namespace {

std::uint64_t bytes_of(const std::string& where, std::uint64_t elements, std::size_t element_size) {
    if (element_size != 0 && elements > UINT64_MAX / element_size) {
        fail(ErrorKind::limit, where + ": declares more than 2^64 bytes");
    }
    return elements * element_size;
}

}  // namespace

std::uint64_t default_tensor_bytes() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    constexpr std::uint64_t kMax = 4ull << 30;
    if (pages <= 0 || page <= 0) return kMax;
    return std::min(kMax, static_cast<std::uint64_t>(pages) / 4 * static_cast<std::uint64_t>(page));
}

ByteBudget::ByteBudget(std::uint64_t tensor_bytes, std::uint64_t total_bytes)
    : tensor_bytes_(tensor_bytes ? tensor_bytes : default_tensor_bytes()),
      total_bytes_(total_bytes ? total_bytes : kDefaultTotalBytes) {}

void ByteBudget::check_tensor(const std::string& where, std::uint64_t elements,
                              std::size_t element_size) const {
    const std::uint64_t bytes = bytes_of(where, elements, element_size);
    if (bytes > tensor_bytes_) {
        fail(ErrorKind::limit, where + ": declares " + std::to_string(elements) + " elements (" +
                                   std::to_string(bytes) + " bytes), over the cap of " +
                                   std::to_string(tensor_bytes_) +
                                   " bytes per tensor (raise it with --max-tensor-bytes)");
    }
}

void ByteBudget::take(const std::string& where, std::uint64_t elements, std::size_t element_size) {
    check_tensor(where, elements, element_size);
    const std::uint64_t bytes = elements * element_size;
    if (bytes > total_bytes_ - spent_) {
        fail(ErrorKind::limit, where + ": brings the output past the cap of " +
                                   std::to_string(total_bytes_) +
                                   " bytes in total (raise it with --max-total-bytes)");
    }
    spent_ += bytes;
}

}  // namespace gradcodec::cli
