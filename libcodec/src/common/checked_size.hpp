#pragma once
// Sizes computed from a declared element count (payload and frame bounds), with every sum and
// product checked: a size past 64 bits is Error(bad_input), never a small wrapped value that a
// caller would trust as a buffer size.
#include <cstdint>

#include "gradcodec/error.hpp"

namespace gradcodec {

[[noreturn]] inline void size_overflows() {
    fail(ErrorKind::bad_input, "the tensor's size bound overflows 64 bits");
}

inline std::uint64_t size_add(std::uint64_t a, std::uint64_t b) {
    std::uint64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum)) size_overflows();
    return sum;
}

template <typename... Rest>
std::uint64_t size_add(std::uint64_t a, std::uint64_t b, Rest... rest) {
    return size_add(size_add(a, b), rest...);
}

inline std::uint64_t size_mul(std::uint64_t a, std::uint64_t b) {
    std::uint64_t product = 0;
    if (__builtin_mul_overflow(a, b, &product)) size_overflows();
    return product;
}

// ceil(bits / 8) for a bit count given as count x bits_each.
inline std::uint64_t size_bytes_of_bits(std::uint64_t count, std::uint64_t bits_each) {
    const std::uint64_t bits = size_mul(count, bits_each);
    return bits / 8 + (bits % 8 != 0 ? 1 : 0);
}

}  // namespace gradcodec
