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

// Hands the codec binary32 values (a view when the tensor is f32 already).
std::vector<std::uint8_t> encode_float32(
    const TensorMeta& meta, std::span<const std::byte> data,
    const std::function<std::vector<std::uint8_t>(std::span<const float>)>& encode);

// Lets the codec fill binary32 values, then stores them in the tensor's dtype.
void decode_float32(const TensorMeta& meta, std::span<std::byte> out,
                    const std::function<void(std::span<float>)>& decode);

}  // namespace gradcodec
