#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

#include "gradcodec/dtype.hpp"

namespace gradcodec::cli {

// Elements that are not zero: floats compare by value (so -0 is zero), others by bytes.
std::uint64_t count_nonzero(DType dtype, std::span<const std::byte> values);

}  // namespace gradcodec::cli
