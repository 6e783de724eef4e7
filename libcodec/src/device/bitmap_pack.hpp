#pragma once
// The bitmap position coder's data bytes (index/bitmap_positions.cpp: bit p of the n-bit map,
// byte p/8, bit p mod 8, set when element p is kept) built on the device from the kept
// indices. Not yet used by encode_fft_on_device: encode_positions on the host picks the
// smallest coder from the sorted indices, and its section writer takes no prebuilt data.
#include <cstdint>
#include <vector>

namespace gradcodec::cuda {

// `kept` is device memory holding k indices, each < n (any order).
std::vector<std::uint8_t> bitmap_on_device(const std::uint64_t* kept, std::uint64_t k,
                                           std::uint64_t n);

}  // namespace gradcodec::cuda
