#pragma once
// Range-based N-bit float codes on the device: each thread runs the per-element functions of
// quant/range_code.hpp, as the CPU's encode_range_floats / decode_range_floats do, so for one
// ladder the codes agree bit for bit. The ladder itself (mantissa choice, clamps, the non-finite
// list) is chosen on the host by write_range_section, which needs the whole value set anyway.
#include <cstdint>

#include "quant/range_float.hpp"

namespace gradcodec::cuda {

// `in` and `codes` are device memory of n elements.
void encode_range_codes_on_device(const RangeLadder& ladder, Rounding rounding, const float* in,
                                  std::uint64_t n, std::uint32_t* codes);
void decode_range_codes_on_device(const RangeLadder& ladder, const std::uint32_t* codes,
                                  std::uint64_t n, float* out);

}  // namespace gradcodec::cuda
