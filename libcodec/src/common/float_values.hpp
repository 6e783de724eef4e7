#pragma once
// Lossy codecs work on binary32. These adapters turn a tensor of any float dtype into
// binary32 values and back, without a copy when the tensor already is aligned f32.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/scratch.hpp"
#include "gradcodec/dtype.hpp"
#include "gradcodec/tensor.hpp"

namespace gradcodec {

class Float32Values {
  public:
    Float32Values(DType dtype, std::span<const std::byte> data);
    std::span<const float> values() const { return view_; }

  private:
    ScratchVector<float> storage_;
    std::span<const float> view_;
};

// Throws Error(bad_input) naming the tensor and the first non-finite index (counted from
// `first`, where `values` are part of the tensor). The message names the option
// (allow_nonfinite) that carries such values where a codec can.
void require_finite(const TensorMeta& meta, std::span<const float> values, std::uint64_t first = 0);

// Widens each element of a float tensor to double, for exact metrics.
double float_element(DType dtype, std::span<const std::byte> data, std::size_t index);

// Writes binary32 values into `out` in `dtype` (f16/bf16 round to nearest even; f64 widens).
// Throws Error(bad_input) naming `tensor` when a finite value overflows a half type.
void store_float32(std::span<const float> values, DType dtype, std::span<std::byte> out,
                   const std::string& tensor);

}  // namespace gradcodec
