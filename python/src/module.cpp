// The compiled half of the gradcodec Python package; python/gradcodec/__init__.py is the rest.
#include <pybind11/pybind11.h>

#include <gradcodec/version.hpp>

#include "bindings.hpp"
#include "errors.hpp"

PYBIND11_MODULE(_gradcodec, module) {
    module.doc() = "gradcodec's codecs, frames and streams (see the gradcodec package)";
    module.attr("__version__") = gradcodec::library_version();
    gradcodec::python::register_errors(module);
    gradcodec::python::register_codec(module);
    gradcodec::python::register_stream(module);
    gradcodec::python::register_positions(module);
}
