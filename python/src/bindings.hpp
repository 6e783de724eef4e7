#pragma once
// The parts of the _gradcodec module, each registered by its own file.
#include <pybind11/pybind11.h>

namespace gradcodec::python {

void register_codec(pybind11::module_& module);
void register_stream(pybind11::module_& module);
void register_positions(pybind11::module_& module);

}  // namespace gradcodec::python
