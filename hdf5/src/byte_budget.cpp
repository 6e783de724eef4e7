#include "gradcodec_hdf5/byte_budget.hpp"

#include "gradcodec/error.hpp"
#include "gradcodec/stream.hpp"

namespace gradcodec::hdf5 {
namespace {

std::uint64_t bytes_of(const std::string& where, std::uint64_t elements, std::size_t element_size) {
    if (element_size != 0 && elements > UINT64_MAX / element_size) {
        fail(ErrorKind::limit, where + ": declares more than 2^64 bytes");
    }
    return elements * element_size;
}

}  // namespace

ByteBudget::ByteBudget(std::uint64_t tensor_bytes, std::uint64_t total_bytes)
    : tensor_bytes_(tensor_bytes ? tensor_bytes : default_max_tensor_bytes()),
      total_bytes_(total_bytes ? total_bytes : kDefaultMaxTotalBytes) {}

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

void ByteBudget::check_working_memory(const std::string& where, const std::string& work,
                                      std::uint64_t elements, std::size_t bytes_per_element) const {
    const std::uint64_t bytes = bytes_of(where, elements, bytes_per_element);
    if (bytes > tensor_bytes_) {
        fail(ErrorKind::limit, where + ": " + work + " its " + std::to_string(elements) +
                                   " elements needs about " + std::to_string(bytes) +
                                   " bytes of working memory, over the cap of " +
                                   std::to_string(tensor_bytes_) +
                                   " bytes per tensor (raise it with --max-tensor-bytes)");
    }
}

void ByteBudget::check_memory(const std::string& where, const std::string& work,
                              std::uint64_t bytes) const {
    if (bytes > tensor_bytes_) {
        fail(ErrorKind::limit, where + ": " + work + " needs about " + std::to_string(bytes) +
                                   " bytes of working memory, over the cap of " +
                                   std::to_string(tensor_bytes_) +
                                   " bytes per tensor (raise it with --max-tensor-bytes)");
    }
}

void ByteBudget::take(const std::string& where, std::uint64_t elements, std::size_t element_size) {
    check_tensor(where, elements, element_size);
    take_output(where, elements, element_size);
}

void ByteBudget::take_output(const std::string& where, std::uint64_t elements,
                             std::size_t element_size) {
    const std::uint64_t bytes = bytes_of(where, elements, element_size);
    if (bytes > total_bytes_ - spent_) {
        fail(ErrorKind::limit, where + ": brings the output past the cap of " +
                                   std::to_string(total_bytes_) +
                                   " bytes in total (raise it with --max-total-bytes)");
    }
    spent_ += bytes;
}

}  // namespace gradcodec::hdf5
