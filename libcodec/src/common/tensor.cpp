#include "gradcodec/tensor.hpp"

#include "gradcodec/error.hpp"

namespace gradcodec {

std::uint64_t TensorMeta::element_count() const {
    std::uint64_t n = 1;
    for (auto d : shape) {
        if (d > kMaxDimension) {
            fail(ErrorKind::bad_input,
                 name + ": shape " + shape_to_string(shape) + " has a dimension above 2^63 - 1");
        }
        if (d != 0 && n > UINT64_MAX / d) {
            fail(ErrorKind::bad_input,
                 name + ": shape " + shape_to_string(shape) + " has more than 2^64 elements");
        }
        n *= d;
    }
    return n;
}

std::uint64_t TensorMeta::byte_count() const {
    const std::uint64_t n = element_count();
    const std::uint64_t size = dtype_size(dtype);
    if (n > UINT64_MAX / size) fail(ErrorKind::bad_input, name + ": byte size overflows 64 bits");
    return n * size;
}

std::string shape_to_string(std::span<const std::uint64_t> shape) {
    if (shape.empty()) return "scalar";
    std::string s;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) s += 'x';
        s += std::to_string(shape[i]);
    }
    return s;
}

}  // namespace gradcodec
