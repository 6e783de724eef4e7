#include "codec/residual.hpp"
#include "codec/codec_def.hpp"

#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>

#include "common/small_float.hpp"
#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec {
namespace {

// residual = values - decoded, element by element; `decoded` may be `residual` itself.
template <typename T>
void subtract(std::span<const std::byte> values, std::span<const std::byte> decoded,
              std::span<std::byte> residual) {
    const std::size_t n = values.size() / sizeof(T);
    for (std::size_t i = 0; i < n; ++i) {
        T x, y;
        std::memcpy(&x, values.data() + i * sizeof(T), sizeof(T));
        std::memcpy(&y, decoded.data() + i * sizeof(T), sizeof(T));
        const T r = x - y;
        std::memcpy(residual.data() + i * sizeof(T), &r, sizeof(T));
    }
}

void subtract_half(SmallFloat type, std::span<const std::byte> values,
                   std::span<const std::byte> decoded, std::span<std::byte> residual) {
    const std::size_t n = values.size() / 2;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint16_t x, y;
        std::memcpy(&x, values.data() + 2 * i, 2);
        std::memcpy(&y, decoded.data() + 2 * i, 2);
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

void subtract_by_dtype(DType dtype, std::span<const std::byte> values,
                       std::span<const std::byte> decoded, std::span<std::byte> residual) {
    switch (dtype) {
        case DType::f32:
            return subtract<float>(values, decoded, residual);
        case DType::f64:
            return subtract<double>(values, decoded, residual);
        case DType::f16:
            return subtract_half(SmallFloat::f16, values, decoded, residual);
        case DType::bf16:
            return subtract_half(SmallFloat::bf16, values, decoded, residual);
        default:
            return;
    }
}

void check_size(const TensorMeta& meta, std::span<const std::byte> buffer, const char* what) {
    if (buffer.size() != meta.byte_count()) {
        fail(ErrorKind::usage, meta.name + ": " + what + " buffer of " +
                                   std::to_string(buffer.size()) + " bytes, the tensor needs " +
                                   std::to_string(meta.byte_count()));
    }
}

bool share_memory(const void* a, std::size_t a_size, const void* b, std::size_t b_size) {
    if (a_size == 0 || b_size == 0) return false;
    const auto x = reinterpret_cast<std::uintptr_t>(a);
    const auto y = reinterpret_cast<std::uintptr_t>(b);
    return x < y + b_size && y < x + a_size;
}

}  // namespace

void check_separate_buffers(const TensorMeta& meta, std::span<const std::byte> values,
                            std::span<const std::uint8_t> out, const Feedback& feedback) {
    struct Buffer {
        const char* what;
        const void* data;
        std::size_t size;
    };
    const Buffer buffers[] = {
        {"the values", values.data(), values.size()},
        {"the output buffer", out.data(), out.size()},
        {"the residual buffer", feedback.residual.data(), feedback.residual.size()},
        {"the decoded buffer", feedback.decoded.data(), feedback.decoded.size()},
    };
    for (std::size_t i = 0; i < std::size(buffers); ++i) {
        for (std::size_t j = i + 1; j < std::size(buffers); ++j) {
            if (share_memory(buffers[i].data, buffers[i].size, buffers[j].data, buffers[j].size)) {
                fail(ErrorKind::usage, (meta.name.empty() ? "" : meta.name + ": ") +
                                           buffers[i].what + " and " + buffers[j].what +
                                           " share memory");
            }
        }
    }
}

void write_residual(std::uint16_t codec_id, const TensorMeta& meta,
                    std::span<const std::byte> values, std::span<const std::uint8_t> payload,
                    std::span<std::byte> residual) {
    check_size(meta, residual, "residual");
    write_feedback(codec_id, meta, values, payload, Feedback{residual, {}});
}

void write_feedback(std::uint16_t codec_id, const TensorMeta& meta,
                    std::span<const std::byte> values, std::span<const std::uint8_t> payload,
                    const Feedback& feedback) {
    if (!feedback.residual.empty()) check_size(meta, feedback.residual, "residual");
    if (!feedback.decoded.empty()) check_size(meta, feedback.decoded, "decoded");
    const bool floats = is_float(meta.dtype);
    if (!feedback.decoded.empty()) {
        decode_payload(codec_id, meta, payload, feedback.decoded);
    } else if (!feedback.residual.empty() && floats) {
        decode_payload(codec_id, meta, payload, feedback.residual);
    }
    if (feedback.residual.empty()) return;
    if (!floats) {
        std::memset(feedback.residual.data(), 0, feedback.residual.size());
        return;
    }
    const std::span<const std::byte> decoded =
        feedback.decoded.empty() ? feedback.residual : feedback.decoded;
    subtract_by_dtype(meta.dtype, values, decoded, feedback.residual);
}

}  // namespace gradcodec
