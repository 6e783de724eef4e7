#pragma once
// Python buffers (NumPy arrays, bytes, memoryviews, torch tensors' .numpy() views) seen as
// gradcodec tensors without copying: the element type, the shape and the bytes in place.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <gradcodec/dtype.hpp>
#include <gradcodec/tensor.hpp>

namespace gradcodec::python {

// A C-contiguous buffer held open for as long as this view lives.
struct TensorView {
    pybind11::buffer_info info;
    DType dtype = DType::f32;
    std::vector<std::uint64_t> shape;
    std::span<std::byte> bytes;

    TensorMeta meta(std::string name = {}) const { return {std::move(name), dtype, shape}; }
    std::uint64_t element_count() const;
};

// `dtype` names the element type where the buffer's own format cannot ("bf16" for a uint16
// view of bfloat16 bits); otherwise it must agree with the buffer. Throws Error(usage) naming
// `what` for a non-contiguous, big-endian, read-only (when writable) or non-float buffer.
TensorView float_tensor_view(const pybind11::buffer& buffer,
                             const std::optional<std::string>& dtype, bool writable,
                             const char* what);

// Any contiguous buffer as raw bytes (a frame, an output area).
struct ByteView {
    pybind11::buffer_info info;
    std::span<std::uint8_t> bytes;
};
ByteView byte_view(const pybind11::buffer& buffer, bool writable, const char* what);

bool overlaps(std::span<const std::byte> a, std::span<const std::byte> b);

// The NumPy dtype that holds a tensor of this type; bf16 is held as uint16 bit patterns.
pybind11::dtype numpy_dtype(DType dtype);

}  // namespace gradcodec::python
