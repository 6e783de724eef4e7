#pragma once
// gradcodec.Error and one subclass per ErrorKind, so Python callers catch what they can act on:
// UsageError and BadInputError are also ValueErrors, IOError_ is also an OSError.
#include <pybind11/pybind11.h>

namespace gradcodec::python {

void register_errors(pybind11::module_& module);

}  // namespace gradcodec::python
