#pragma once
// HDF5-style attributes between the stream's Attribute records and Python values: numbers and
// NumPy arrays are numeric attributes, str is a UTF-8 variable-length string.
#include <pybind11/pybind11.h>

#include <vector>

#include <gradcodec/stream.hpp>

namespace gradcodec::python {

pybind11::dict attributes_to_python(const std::vector<Attribute>& attributes);
std::vector<Attribute> attributes_from_python(const pybind11::dict& attributes);

}  // namespace gradcodec::python
