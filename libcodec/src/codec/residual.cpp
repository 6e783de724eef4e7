#include "codec/residual.hpp"
#include "codec/codec_def.hpp"

#include <cstring>
#include <string>

#include "common/small_float.hpp"
#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec {
namespace {

template <typename T>
void subtract_in_place(std::span<const std::byte> values, std::span<std::byte> residual) {
    const std::size_t n = values.size() / sizeof(T);
    for (std::size_t i = 0; i < n; ++i) {
        T x, y;
        std::memcpy(&x, values.data() + i * sizeof(T), sizeof(T));
        std::memcpy(&y, residual.data() + i * sizeof(T), sizeof(T));
        const T r = x - y;
        std::memcpy(residual.data() + i * sizeof(T), &r, sizeof(T));
    }
}

void subtract_half_in_place(SmallFloat type, std::span<const std::byte> values,
                            std::span<std::byte> residual) {
    const std::size_t n = values.size() / 2;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint16_t x, y;
        std::memcpy(&x, values.data() + 2 * i, 2);
        std::memcpy(&y, residual.data() + 2 * i, 2);
        const float r = widen_from(type, x) - widen_from(type, y);
        std::uint32_t narrowed = narrow_float_bits(type, r);
        // A difference past the type's range (x and its decoded value far apart with opposite
        // signs) saturates to infinity of its sign.
        if (narrowed & kNarrowOverflow) {
            narrowed = (narrowed & 0x8000u) | (type == SmallFloat::f16 ? 0x7c00u : 0x7f80u);
        }
        const auto bits = static_cast<std::uint16_t>(narrowed);
        std::memcpy(residual.data() + 2 * i, &bits, 2);
    }
}

}  // namespace

void write_residual(std::uint16_t codec_id, const TensorMeta& meta,
                    std::span<const std::byte> values, std::span<const std::uint8_t> payload,
                    std::span<std::byte> residual) {
    if (residual.size() != meta.byte_count()) {
        fail(ErrorKind::usage, meta.name + ": residual buffer of " +
                                   std::to_string(residual.size()) + " bytes, the tensor needs " +
                                   std::to_string(meta.byte_count()));
    }
    if (!is_float(meta.dtype)) {
        std::memset(residual.data(), 0, residual.size());
        return;
    }
    decode_payload(codec_id, meta, payload, residual);
    switch (meta.dtype) {
        case DType::f32:
            subtract_in_place<float>(values, residual);
            return;
        case DType::f64:
            subtract_in_place<double>(values, residual);
            return;
        case DType::f16:
            subtract_half_in_place(SmallFloat::f16, values, residual);
            return;
        case DType::bf16:
            subtract_half_in_place(SmallFloat::bf16, values, residual);
            return;
        default:
            return;
    }
}

}  // namespace gradcodec
