#include "codec/float_codec.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "common/float_values.hpp"
#include "common/scratch.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec {

void require_float_tensor(std::string_view codec, const TensorMeta& meta) {
    if (!is_float(meta.dtype)) {
        fail(ErrorKind::usage, meta.name + ": codec '" + std::string(codec) +
                                   "' applies to float tensors only, not " +
                                   std::string(dtype_name(meta.dtype)));
    }
}

// The lossy codecs compute in binary32: a finite f64 value beyond its range would turn into an
// infinity, which is not what the caller asked to encode.
void require_binary32_range(const TensorMeta& meta, std::span<const std::byte> data,
                            std::span<const float> values) {
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (!std::isinf(values[i])) continue;
        const double x = float_element(DType::f64, data, i);
        if (std::isinf(x)) continue;
        fail(ErrorKind::bad_input, meta.name + ": element " + std::to_string(i) + " = " +
                                       std::to_string(x) +
                                       " is outside the binary32 range that lossy codecs compute "
                                       "in (|x| <= 3.4e38); use lossless");
    }
}

void store_decoded_float32(const TensorMeta& meta, std::span<const float> values,
                           std::span<std::byte> out) {
    try {
        store_float32(values, meta.dtype, out, meta.name);
    } catch (const Error& e) {
        // Encoders refuse values the tensor's dtype cannot hold, so a payload that decodes to
        // one was not written by an encoder: the stream is damaged, not the caller's input.
        if (e.kind() != ErrorKind::bad_input) throw;
        fail(ErrorKind::damaged_stream, std::string(e.what()) + " (payload decodes out of range)");
    }
}

}  // namespace gradcodec
