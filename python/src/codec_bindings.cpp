// gradcodec.Codec, decode, frame_info and list_codecs. Every encode and decode runs with the
// GIL released: the buffers stay pinned by their views, and a Codec is immutable.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <gradcodec/codec.hpp>
#include <gradcodec/error.hpp>
#include <gradcodec/frame.hpp>
#include <gradcodec/stream.hpp>

#include "bindings.hpp"
#include "buffers.hpp"
#include "limits.hpp"

namespace gradcodec::python {
namespace py = pybind11;

namespace {

using OptionalDType = std::optional<std::string>;

// A residual= or decoded= buffer: the array's dtype and length, sharing memory with neither
// the array nor the other feedback buffer.
TensorView feedback_view(const py::buffer& buffer, const TensorView& values, const char* what) {
    TensorView view = float_tensor_view(buffer, std::string(dtype_name(values.dtype)), true, what);
    if (view.bytes.size() != values.bytes.size()) {
        fail(ErrorKind::usage, std::string(what) + " holds " +
                                   std::to_string(view.element_count()) + " values, the array " +
                                   std::to_string(values.element_count()));
    }
    if (overlaps(view.bytes, values.bytes)) {
        fail(ErrorKind::usage, std::string(what) + " must not share memory with the array");
    }
    return view;
}

struct FeedbackArgs {
    std::optional<py::buffer> residual;
    std::optional<py::buffer> decoded;
};

std::size_t encode_into(const Codec& codec, const TensorView& values, std::span<std::uint8_t> out,
                        const FeedbackArgs& args) {
    Feedback feedback;
    std::optional<TensorView> residual, decoded;  // keep the buffers pinned while encoding
    if (args.residual) {
        residual = feedback_view(*args.residual, values, "residual");
        feedback.residual = residual->bytes;
    }
    if (args.decoded) {
        decoded = feedback_view(*args.decoded, values, "decoded");
        feedback.decoded = decoded->bytes;
    }
    if (residual && decoded && overlaps(residual->bytes, decoded->bytes)) {
        fail(ErrorKind::usage, "residual and decoded must not share memory");
    }
    const TensorMeta meta = values.meta();
    py::gil_scoped_release unlocked;
    return encode_frame_into(codec, meta, values.bytes, out, feedback);
}

py::bytes encode(const Codec& codec, const py::buffer& array,
                 const std::optional<py::buffer>& residual,
                 const std::optional<py::buffer>& decoded, const OptionalDType& dtype) {
    const TensorView values = float_tensor_view(array, dtype, false, "array");
    const auto bound = max_frame_size(codec, values.meta());
    // Encoded straight into the bytes object, then shrunk: no second copy of the frame.
    PyObject* frame = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(bound));
    if (frame == nullptr) throw py::error_already_set();
    auto owner = py::reinterpret_steal<py::object>(frame);
    std::span<std::uint8_t> out{reinterpret_cast<std::uint8_t*>(PyBytes_AS_STRING(frame)),
                                static_cast<std::size_t>(bound)};
    const std::size_t size = encode_into(codec, values, out, FeedbackArgs{residual, decoded});
    owner.release();
    if (_PyBytes_Resize(&frame, static_cast<Py_ssize_t>(size)) != 0) throw py::error_already_set();
    return py::reinterpret_steal<py::bytes>(frame);
}

std::size_t encode_into_buffer(const Codec& codec, const py::buffer& array, const py::buffer& out,
                               const std::optional<py::buffer>& residual,
                               const std::optional<py::buffer>& decoded,
                               const OptionalDType& dtype) {
    const TensorView values = float_tensor_view(array, dtype, false, "array");
    const ByteView target = byte_view(out, true, "out");
    return encode_into(codec, values, target.bytes, FeedbackArgs{residual, decoded});
}

py::object decode(const py::buffer& frame, const std::optional<py::buffer>& out,
                  const OptionalDType& dtype, std::optional<std::int64_t> max_tensor_bytes,
                  std::optional<std::int64_t> max_total_bytes) {
    DecodeCaps caps(max_tensor_bytes, max_total_bytes);
    const ByteView bytes = byte_view(frame, false, "frame");
    const FrameInfo info = read_frame_info(bytes.bytes);
    if (out) {
        const auto name = dtype ? *dtype : std::string(dtype_name(info.dtype));
        TensorView target = float_tensor_view(
            *out, name == "bf16" || name == "f16" ? std::optional(name) : dtype, true, "out");
        if (target.dtype != info.dtype) {
            fail(ErrorKind::usage, "out holds " + std::string(dtype_name(target.dtype)) +
                                       " values, the frame " + std::string(dtype_name(info.dtype)));
        }
        if (target.element_count() != info.element_count) {
            fail(ErrorKind::usage, "out holds " + std::to_string(target.element_count()) +
                                       " values, the frame " + std::to_string(info.element_count));
        }
        {
            py::gil_scoped_release unlocked;
            decode_frame_into(bytes.bytes, target.bytes);
        }
        return *out;
    }
    // From the header, before allocating: an 87-byte frame may declare 10^9 zeros.
    caps.take("frame", info.element_count, info.dtype);
    std::vector<py::ssize_t> shape(info.shape.begin(), info.shape.end());
    py::array result(numpy_dtype(info.dtype), shape);
    std::span<std::byte> target{static_cast<std::byte*>(result.mutable_data()),
                                static_cast<std::size_t>(result.nbytes())};
    {
        py::gil_scoped_release unlocked;
        decode_frame_into(bytes.bytes, target);
    }
    return result;
}

py::dict frame_info(const py::buffer& frame) {
    const ByteView bytes = byte_view(frame, false, "frame");
    const FrameInfo info = read_frame_info(bytes.bytes);
    py::dict result;
    result["codec_id"] = info.codec_id;
    result["codec"] = std::string(codec_name(info.codec_id));
    result["dtype"] = std::string(dtype_name(info.dtype));
    result["shape"] = py::tuple(py::cast(info.shape));
    result["element_count"] = info.element_count;
    result["payload_offset"] = info.payload_offset;
    result["payload_size"] = info.payload_size;
    result["frame_size"] = info.payload_offset + info.payload_size + kFrameChecksumBytes;
    return result;
}

py::list codec_list() {
    py::list result;
    for (const CodecInfo& info : list_codecs()) {
        py::dict entry;
        entry["name"] = std::string(info.name);
        entry["id"] = info.id;
        entry["summary"] = std::string(info.summary);
        result.append(entry);
    }
    return result;
}

const char* knob_kind_name(KnobKind kind) {
    switch (kind) {
        case KnobKind::density:
            return "density";
        case KnobKind::ladder:
            return "ladder";
        case KnobKind::type:
            return "type";
        default:
            return "none";
    }
}

// The registry's rows as dicts: h5filter's id table and every front end read them from here.
py::list catalog_list() {
    py::list result;
    for (const CodecCatalogEntry& c : codec_catalog()) {
        py::dict knob;
        knob["kind"] = knob_kind_name(c.knob.kind);
        knob["key"] = std::string(c.knob.key);
        knob["ladder"] = py::cast(std::vector<int>(c.knob.ladder.begin(), c.knob.ladder.end()));
        knob["pointwise"] = c.knob.pointwise;
        py::dict entry;
        entry["name"] = std::string(c.name);
        entry["id"] = c.id;
        entry["payload"] = std::string(c.payload);
        entry["summary"] = std::string(c.summary);
        entry["defaults"] = std::string(c.defaults);
        entry["floats_only"] = c.floats_only;
        entry["filter_ok"] = c.filter_ok;
        entry["draws_seed"] = c.draws_seed;
        entry["knob"] = knob;
        result.append(entry);
    }
    return result;
}

}  // namespace

void register_codec(py::module_& module) {
    py::class_<Codec>(module, "Codec",
                      "A codec compiled once from its spec; usable from any thread.")
        .def(py::init([](const std::string& spec, bool allow_nonfinite) {
                 return Codec::compile(spec, EncodeOptions{allow_nonfinite});
             }),
             py::arg("spec"), py::arg("allow_nonfinite") = false)
        .def_property_readonly("spec", &Codec::spec)
        .def_property_readonly("name", [](const Codec& c) { return std::string(c.name()); })
        .def_property_readonly("id", &Codec::id)
        .def(
            "max_frame_size",
            [](const Codec& c, std::uint64_t count, const std::string& dtype) {
                const auto type = dtype_from_name(dtype);
                if (!type || !is_float(*type))
                    fail(ErrorKind::usage, "dtype must be f16, bf16, f32 or f64");
                return max_frame_size(c, TensorMeta{{}, *type, {count}});
            },
            py::arg("count"), py::arg("dtype") = "f32")
        .def("encode", &encode, py::arg("array"), py::kw_only(), py::arg("residual") = py::none(),
             py::arg("decoded") = py::none(), py::arg("dtype") = py::none())
        .def("encode_into", &encode_into_buffer, py::arg("array"), py::arg("out"), py::kw_only(),
             py::arg("residual") = py::none(), py::arg("decoded") = py::none(),
             py::arg("dtype") = py::none())
        .def("__repr__", [](const Codec& c) { return "gradcodec.Codec('" + c.spec() + "')"; });
    module.def("decode", &decode, py::arg("frame"), py::kw_only(), py::arg("out") = py::none(),
               py::arg("dtype") = py::none(), py::arg("max_tensor_bytes") = py::none(),
               py::arg("max_total_bytes") = py::none());
    module.def("frame_info", &frame_info, py::arg("frame"));
    module.def("default_max_tensor_bytes", &default_max_tensor_bytes,
               "The default of max_tensor_bytes= (the CLI's --max-tensor-bytes).");
    module.attr("DEFAULT_MAX_TOTAL_BYTES") = kDefaultMaxTotalBytes;
    module.def("list_codecs", &codec_list);
    module.def("codec_catalog", &catalog_list,
               "Every registered codec as the registry declares it: name, id, payload, summary, "
               "defaults, floats_only, filter_ok (usable per HDF5 chunk), draws_seed and knob "
               "(what --target turns).");
}

}  // namespace gradcodec::python
