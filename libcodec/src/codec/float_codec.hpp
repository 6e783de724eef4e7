#pragma once
// Shared plumbing of the lossy codecs: they compute on binary32 whatever the tensor's float
// dtype, and refuse non-finite input unless told to carry it.
#include <cstddef>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "common/float_values.hpp"
#include "gradcodec/codec.hpp"

namespace gradcodec {

// Throws Error(usage) when `codec`, a float-only codec, is asked to encode another dtype.
void require_float_tensor(std::string_view codec, const TensorMeta& meta);

// Throws Error(bad_input) when an f64 tensor holds a finite value beyond binary32's range.
void require_binary32_range(const TensorMeta& meta, std::span<const std::byte> data,
                            std::span<const float> values);

// Hands the codec binary32 values (a view when the tensor is f32 already). A template, not a
// std::function, so that encoding a tensor allocates nothing for the call itself.
template <class Encode>
decltype(auto) encode_float32(const TensorMeta& meta, std::span<const std::byte> data,
                              Encode&& encode) {
    const Float32Values values(meta.dtype, data);
    if (meta.dtype == DType::f64) require_binary32_range(meta, data, values.values());
    return encode(values.values());
}

// Lets the codec fill binary32 values, then stores them in the tensor's dtype.
void decode_float32(const TensorMeta& meta, std::span<std::byte> out,
                    const std::function<void(std::span<float>)>& decode);

}  // namespace gradcodec
