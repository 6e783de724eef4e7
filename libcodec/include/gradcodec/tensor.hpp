#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gradcodec/dtype.hpp"

// Everything declared here is the shared library's API; the rest of it stays hidden.
#pragma GCC visibility push(default)
namespace gradcodec {

// The largest dimension a shape may have, 2^63 - 1: what a signed 64-bit size (NumPy's, most
// languages') holds. A dimension of 0 (an empty tensor) is allowed; a larger one is refused even
// where another dimension is 0 and the product would be 0.
inline constexpr std::uint64_t kMaxDimension = (std::uint64_t{1} << 63) - 1;

// What a codec needs to know of a tensor besides its values. `name` is used in messages only.
struct TensorMeta {
    std::string name;
    DType dtype = DType::f32;
    std::vector<std::uint64_t> shape;  // empty = scalar

    // Throws Error(bad_input) when a dimension exceeds kMaxDimension or the product overflows
    // 64 bits.
    std::uint64_t element_count() const;
    std::uint64_t byte_count() const;
};

std::string shape_to_string(std::span<const std::uint64_t> shape);  // "10x1024", "scalar"

// The elements of a float tensor (f16, bf16, f32, f64 bytes) as binary32.
std::vector<float> widen_to_float32(DType dtype, std::span<const std::byte> data);

}  // namespace gradcodec
#pragma GCC visibility pop
