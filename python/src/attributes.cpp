#include "attributes.hpp"

#include <pybind11/numpy.h>

#include <cstring>
#include <string>

#include <gradcodec/error.hpp>

#include "buffers.hpp"

namespace gradcodec::python {
namespace py = pybind11;

namespace {

py::object shaped(py::list elements, const Attribute& attribute) {
    if (attribute.shape.empty()) return elements.empty() ? py::object(py::str()) : elements[0];
    return elements;
}

std::string trimmed(const std::uint8_t* bytes, std::size_t size, std::uint8_t strpad) {
    std::string text(reinterpret_cast<const char*>(bytes), size);
    const char pad = strpad == 2 ? ' ' : '\0';
    if (strpad == 0) text = text.substr(0, text.find('\0'));
    while (!text.empty() && text.back() == pad) text.pop_back();
    return text;
}

py::object fixed_strings(const Attribute& attribute) {
    py::list elements;
    const std::size_t size = attribute.string_size;
    for (std::size_t at = 0; size > 0 && at + size <= attribute.data.size(); at += size) {
        elements.append(py::str(trimmed(attribute.data.data() + at, size, attribute.strpad)));
    }
    return shaped(elements, attribute);
}

py::object vlen_strings(const Attribute& attribute) {
    py::list elements;
    std::size_t at = 0;
    while (at + 4 <= attribute.data.size()) {
        std::uint32_t length = 0;
        for (int i = 0; i < 4; ++i) length |= std::uint32_t{attribute.data[at + i]} << (8 * i);
        at += 4;
        if (length > attribute.data.size() - at)
            fail(ErrorKind::damaged_stream,
                 "attribute " + attribute.name + ": string past its end");
        elements.append(py::str(reinterpret_cast<const char*>(attribute.data.data() + at), length));
        at += length;
    }
    return shaped(elements, attribute);
}

py::object numeric(const Attribute& attribute) {
    std::vector<py::ssize_t> shape(attribute.shape.begin(), attribute.shape.end());
    py::array values(numpy_dtype(attribute.dtype), shape);
    const auto bytes = static_cast<std::size_t>(values.nbytes());
    if (bytes != attribute.data.size()) {
        fail(ErrorKind::damaged_stream, "attribute " + attribute.name + ": " +
                                            std::to_string(attribute.data.size()) + " bytes for " +
                                            std::to_string(bytes));
    }
    std::memcpy(values.mutable_data(), attribute.data.data(), bytes);
    if (attribute.shape.empty()) return values.attr("__getitem__")(py::tuple());
    return values;
}

DType numeric_type(const py::array& values, const std::string& name) {
    const char kind = values.dtype().kind();
    const auto size = values.itemsize();
    if (kind == 'b') return DType::bool8;
    if (kind == 'f' && size == 2) return DType::f16;
    if (kind == 'f' && size == 4) return DType::f32;
    if (kind == 'f' && size == 8) return DType::f64;
    if (kind == 'i' && size == 1) return DType::i8;
    if (kind == 'i' && size == 2) return DType::i16;
    if (kind == 'i' && size == 4) return DType::i32;
    if (kind == 'i' && size == 8) return DType::i64;
    if (kind == 'u' && size == 1) return DType::u8;
    if (kind == 'u' && size == 2) return DType::u16;
    if (kind == 'u' && size == 4) return DType::u32;
    if (kind == 'u' && size == 8) return DType::u64;
    fail(ErrorKind::usage,
         "attribute " + name + ": " + std::string(py::str(values.dtype())) +
             " is not a number type an attribute can hold (str, bool, int, float)");
}

Attribute vlen_string(const std::string& name, const std::string& text) {
    Attribute attribute;
    attribute.name = name;
    attribute.kind = AttrKind::vlen_string;
    attribute.cset = 1;
    const auto length = static_cast<std::uint32_t>(text.size());
    for (int i = 0; i < 4; ++i)
        attribute.data.push_back(static_cast<std::uint8_t>(length >> (8 * i)));
    attribute.data.insert(attribute.data.end(), text.begin(), text.end());
    return attribute;
}

Attribute numeric_attribute(const std::string& name, const py::handle& value) {
    // Little-endian, C order: what the stream stores.
    auto values = py::array::ensure(value, py::array::c_style);
    if (!values)
        fail(ErrorKind::usage, "attribute " + name + " is neither a str nor a number or array");
    if (values.dtype().attr("byteorder").cast<std::string>() == ">") {
        values = values.attr("astype")(values.dtype().attr("newbyteorder")("<"));
    }
    Attribute attribute;
    attribute.name = name;
    attribute.dtype = numeric_type(values, name);
    for (py::ssize_t dim = 0; dim < values.ndim(); ++dim)
        attribute.shape.push_back(static_cast<std::uint64_t>(values.shape(dim)));
    const auto* data = static_cast<const std::uint8_t*>(values.data());
    attribute.data.assign(data, data + values.nbytes());
    return attribute;
}

}  // namespace

py::dict attributes_to_python(const std::vector<Attribute>& attributes) {
    py::dict result;
    for (const Attribute& attribute : attributes) {
        switch (attribute.kind) {
            case AttrKind::numeric:
                result[py::str(attribute.name)] = numeric(attribute);
                break;
            case AttrKind::fixed_string:
                result[py::str(attribute.name)] = fixed_strings(attribute);
                break;
            case AttrKind::vlen_string:
                result[py::str(attribute.name)] = vlen_strings(attribute);
                break;
        }
    }
    return result;
}

std::vector<Attribute> attributes_from_python(const py::dict& attributes) {
    std::vector<Attribute> result;
    for (const auto& [key, value] : attributes) {
        const auto name = py::str(key).cast<std::string>();
        if (py::isinstance<py::str>(value)) {
            result.push_back(vlen_string(name, value.cast<std::string>()));
        } else {
            result.push_back(numeric_attribute(name, value));
        }
    }
    return result;
}

}  // namespace gradcodec::python
