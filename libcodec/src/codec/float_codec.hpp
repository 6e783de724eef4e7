#pragma once
// Shared plumbing of the lossy codecs: they compute on binary32 whatever the tensor's float
// dtype, and refuse non-finite input unless told to carry it.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/float_values.hpp"
#include "common/scratch.hpp"
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

// Stores decoded binary32 values in the tensor's dtype; Error(damaged_stream) when one does
// not fit it.
void store_decoded_float32(const TensorMeta& meta, std::span<const float> values,
                           std::span<std::byte> out);

// Lets the codec fill binary32 values (the output itself when the tensor is aligned f32), then
// stores them in the tensor's dtype. A template, as encode_float32.
template <class Decode>
void decode_float32(const TensorMeta& meta, std::span<std::byte> out, Decode&& decode) {
    const std::size_t n = out.size() / dtype_size(meta.dtype);
    if (meta.dtype == DType::f32 &&
        reinterpret_cast<std::uintptr_t>(out.data()) % alignof(float) == 0) {
        decode(std::span<float>(reinterpret_cast<float*>(out.data()), n));
        return;
    }
    ScratchVector<float> values(n);
    decode(std::span<float>(values));
    store_decoded_float32(meta, values, out);
}

}  // namespace gradcodec
