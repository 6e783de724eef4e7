#include "support/common_values.hpp"

#include <cstring>

namespace gradcodec::cli {

std::uint64_t count_nonzero(DType dtype, std::span<const std::byte> values) {
    const std::size_t size = dtype_size(dtype);
    const std::size_t n = values.size() / size;
    std::uint64_t count = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::byte* p = values.data() + i * size;
        bool nonzero = false;
        if (is_float(dtype)) {
            // Every byte zero except possibly the sign bit of the top byte.
            for (std::size_t b = 0; b < size; ++b) {
                const auto v = std::to_integer<unsigned>(p[b]);
                nonzero = nonzero || (b + 1 == size ? (v & 0x7f) != 0 : v != 0);
            }
        } else {
            for (std::size_t b = 0; b < size; ++b)
                nonzero = nonzero || std::to_integer<unsigned>(p[b]) != 0;
        }
        count += nonzero ? 1 : 0;
    }
    return count;
}

}  // namespace gradcodec::cli
