#include "buffers.hpp"

#include <pybind11/numpy.h>

#include <gradcodec/error.hpp>

namespace gradcodec::python {
namespace py = pybind11;

namespace {

// The struct-module format without its byte-order prefix; "" for a big-endian buffer.
std::string native_format(const std::string& format) {
    if (format.empty()) return "B";
    const char order = format.front();
    if (order == '>' || order == '!') return "";
    if (order == '<' || order == '=' || order == '@') return format.substr(1);
    return format;
}

// Whether a buffer of this (native) format may hold `named` values: its own float type, or for
// f16 and bf16 16-bit integers holding their bit patterns. Anything else of the right item
// size (complex64 for f64, a structured or integer array) is not the values it would pass for.
bool holds(const std::string& format, DType named) {
    switch (named) {
        case DType::f16:
            return format == "e" || format == "H" || format == "h";
        case DType::bf16:
            return format == "H" || format == "h";
        case DType::f32:
            return format == "f";
        case DType::f64:
            return format == "d";
        default:
            return false;
    }
}

std::optional<DType> float_type_of(const std::string& format) {
    if (format == "f") return DType::f32;
    if (format == "d") return DType::f64;
    if (format == "e") return DType::f16;
    return std::nullopt;
}

bool is_c_contiguous(const py::buffer_info& info) {
    auto expected = info.itemsize;
    for (auto dim = info.ndim; dim-- > 0;) {
        const auto extent = info.shape[static_cast<std::size_t>(dim)];
        if (extent != 1 && info.strides[static_cast<std::size_t>(dim)] != expected) return false;
        expected *= extent;
    }
    return true;
}

py::buffer_info request(const py::buffer& buffer, bool writable, const char* what) {
    try {
        return buffer.request(writable);
    } catch (py::error_already_set& error) {
        // NumPy reports a read-only array as ValueError, other exporters as BufferError.
        if (!error.matches(PyExc_BufferError) && !error.matches(PyExc_ValueError)) throw;
        fail(ErrorKind::usage, std::string(what) +
                                   (writable ? " must be a writable buffer: "
                                             : " must support the buffer protocol: ") +
                                   error.what());
    }
}

DType resolve_dtype(const py::buffer_info& info, const std::optional<std::string>& dtype,
                    const char* what) {
    const std::string format = native_format(info.format);
    if (format.empty())
        fail(ErrorKind::usage, std::string(what) + " is big-endian: pass a little-endian array");
    if (dtype) {
        const auto named = dtype_from_name(*dtype);
        if (!named || !is_float(*named)) {
            fail(ErrorKind::usage,
                 std::string(what) + ": dtype '" + *dtype + "' is not one of f16, bf16, f32, f64");
        }
        if (static_cast<std::size_t>(info.itemsize) != dtype_size(*named)) {
            fail(ErrorKind::usage, std::string(what) + ": dtype " + *dtype + " needs " +
                                       std::to_string(dtype_size(*named)) +
                                       "-byte elements, the buffer has " +
                                       std::to_string(info.itemsize));
        }
        const auto own = float_type_of(format);
        if (own && *own != *named) {
            fail(ErrorKind::usage, std::string(what) + " holds " + std::string(dtype_name(*own)) +
                                       " values, not " + *dtype);
        }
        if (!holds(format, *named)) {
            fail(ErrorKind::usage, std::string(what) + ": dtype " + *dtype + " needs an array of " +
                                       (*named == DType::f16    ? "float16 (or uint16 bits)"
                                        : *named == DType::bf16 ? "uint16 bits"
                                        : *named == DType::f32  ? "float32"
                                                                : "float64") +
                                       " values, not of format '" + info.format + "'");
        }
        return *named;
    }
    if (const auto own = float_type_of(format)) return *own;
    if (info.itemsize == 2 && (format == "H" || format == "h")) {
        fail(ErrorKind::usage, std::string(what) +
                                   " holds 16-bit integers: pass dtype='bf16' (or 'f16') to say "
                                   "which floats they are");
    }
    fail(ErrorKind::usage, std::string(what) +
                               " must hold float16, bfloat16, float32 or float64 values (format '" +
                               info.format + "')");
}

}  // namespace

std::uint64_t TensorView::element_count() const {
    return bytes.size() / dtype_size(dtype);
}

TensorView float_tensor_view(const py::buffer& buffer, const std::optional<std::string>& dtype,
                             bool writable, const char* what) {
    TensorView view{request(buffer, writable, what), DType::f32, {}, {}};
    if (!is_c_contiguous(view.info))
        fail(ErrorKind::usage, std::string(what) + " must be C-contiguous");
    view.dtype = resolve_dtype(view.info, dtype, what);
    for (const auto extent : view.info.shape)
        view.shape.push_back(static_cast<std::uint64_t>(extent));
    view.bytes = {static_cast<std::byte*>(view.info.ptr),
                  static_cast<std::size_t>(view.info.size * view.info.itemsize)};
    return view;
}

ByteView byte_view(const py::buffer& buffer, bool writable, const char* what) {
    ByteView view{request(buffer, writable, what), {}};
    if (!is_c_contiguous(view.info))
        fail(ErrorKind::usage, std::string(what) + " must be C-contiguous");
    view.bytes = {static_cast<std::uint8_t*>(view.info.ptr),
                  static_cast<std::size_t>(view.info.size * view.info.itemsize)};
    return view;
}

bool overlaps(std::span<const std::byte> a, std::span<const std::byte> b) {
    if (a.empty() || b.empty()) return false;
    return a.data() < b.data() + b.size() && b.data() < a.data() + a.size();
}

py::dtype numpy_dtype(DType dtype) {
    switch (dtype) {
        case DType::f16:
            return py::dtype("float16");
        case DType::bf16:
            return py::dtype("uint16");
        case DType::f32:
            return py::dtype("float32");
        case DType::f64:
            return py::dtype("float64");
        case DType::i8:
            return py::dtype("int8");
        case DType::i16:
            return py::dtype("int16");
        case DType::i32:
            return py::dtype("int32");
        case DType::i64:
            return py::dtype("int64");
        case DType::u8:
            return py::dtype("uint8");
        case DType::u16:
            return py::dtype("uint16");
        case DType::u32:
            return py::dtype("uint32");
        case DType::u64:
            return py::dtype("uint64");
        case DType::bool8:
            return py::dtype("bool");
    }
    fail(ErrorKind::damaged_stream, "unknown element type");
}

}  // namespace gradcodec::python
