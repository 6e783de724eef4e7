#include "common/float_values.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "common/small_float.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/tensor.hpp"

namespace gradcodec {
namespace {

template <typename T>
T load(std::span<const std::byte> data, std::size_t index) {
    T v;
    std::memcpy(&v, data.data() + index * sizeof(T), sizeof(T));
    return v;
}

}  // namespace

double float_element(DType dtype, std::span<const std::byte> data, std::size_t i) {
    switch (dtype) {
        case DType::f16:
            return f16_to_float(load<std::uint16_t>(data, i));
        case DType::bf16:
            return bf16_to_float(load<std::uint16_t>(data, i));
        case DType::f32:
            return load<float>(data, i);
        case DType::f64:
            return load<double>(data, i);
        default:
            fail(ErrorKind::bad_input, "not a float dtype: " + std::string(dtype_name(dtype)));
    }
}

Float32Values::Float32Values(DType dtype, std::span<const std::byte> data) {
    const std::size_t n = data.size() / dtype_size(dtype);
    if (dtype == DType::f32 &&
        reinterpret_cast<std::uintptr_t>(data.data()) % alignof(float) == 0) {
        view_ = {reinterpret_cast<const float*>(data.data()), n};
        return;
    }
    storage_.resize(n);
    for (std::size_t i = 0; i < n; ++i)
        storage_[i] = static_cast<float>(float_element(dtype, data, i));
    view_ = storage_;
}

std::vector<float> widen_to_float32(DType dtype, std::span<const std::byte> data) {
    const Float32Values values(dtype, data);
    return {values.values().begin(), values.values().end()};
}

void store_float32(std::span<const float> values, DType dtype, std::span<std::byte> out,
                   const std::string& tensor) {
    if (dtype == DType::f32) {
        if (!values.empty()) std::memcpy(out.data(), values.data(), values.size_bytes());
        return;
    }
    if (dtype == DType::f64) {
        for (std::size_t i = 0; i < values.size(); ++i) {
            const double d = values[i];
            std::memcpy(out.data() + i * 8, &d, 8);
        }
        return;
    }
    const SmallFloat type = dtype == DType::f16 ? SmallFloat::f16 : SmallFloat::bf16;
    if constexpr (std::endian::native == std::endian::little) {
        // Tensor memory is host order, which narrow_floats' little-endian bytes then match.
        auto* bytes = reinterpret_cast<std::uint8_t*>(out.data());
        const std::size_t i = narrow_floats(type, values, bytes);
        if (i != values.size()) {
            fail(ErrorKind::bad_input, tensor + ": element " + std::to_string(i) + " = " +
                                           std::to_string(values[i]) + " does not fit " +
                                           std::string(dtype_name(dtype)));
        }
        return;
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
        const auto bits = narrow_to(type, values[i]);
        if (!bits) {
            fail(ErrorKind::bad_input, tensor + ": element " + std::to_string(i) + " = " +
                                           std::to_string(values[i]) + " does not fit " +
                                           std::string(dtype_name(dtype)));
        }
        std::memcpy(out.data() + i * 2, &*bits, 2);
    }
}

void require_finite(const TensorMeta& meta, std::span<const float> values, std::uint64_t first) {
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (!std::isfinite(values[i])) {
            fail(
                ErrorKind::bad_input,
                meta.name + ": element " + std::to_string(first + i) + " is " +
                    (std::isnan(values[i]) ? "NaN" : "infinite") +
                    "; lossy codecs need finite values (allow_nonfinite carries them exactly where "
                    "the codec supports it)");
        }
    }
}

}  // namespace gradcodec
