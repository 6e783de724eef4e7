#pragma once
// Byte-plane shuffling: plane k holds byte k of every element, so the exponent bytes of
// floats sit together (compressible) and the mantissa noise apart (stored as it is).
#include <cstddef>
#include <cstdint>
#include <span>

namespace gradcodec {

// Splits n elements of `element_size` bytes into planes; planes[k] must hold n bytes.
void split_planes(const std::uint8_t* elements, std::size_t n, std::size_t element_size,
                  std::uint8_t* const* planes);

// Writes plane `k` (n bytes) back into byte k of each of the n elements.
void merge_plane(const std::uint8_t* plane, std::size_t n, std::size_t element_size, std::size_t k,
                 std::uint8_t* elements);

}  // namespace gradcodec
