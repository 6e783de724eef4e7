#include "errors.hpp"

#include <gradcodec/error.hpp>

namespace gradcodec::python {
namespace py = pybind11;

namespace {

struct ErrorClasses {
    PyObject* base = nullptr;
    PyObject* usage = nullptr;
    PyObject* bad_input = nullptr;
    PyObject* damaged_stream = nullptr;
    PyObject* limit = nullptr;
    PyObject* io = nullptr;
};

// Module-lifetime references: the classes live as long as the interpreter keeps the module.
ErrorClasses classes;

PyObject* make_class(py::module_& module, const char* name, PyObject* bases, const char* doc) {
    const std::string qualified = std::string("gradcodec.") + name;
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
    if (type == nullptr) throw py::error_already_set();
    module.add_object(name, py::reinterpret_borrow<py::object>(type));
    return type;
}

PyObject* bases_of(PyObject* first, PyObject* second) {
    return py::make_tuple(py::handle(first), py::handle(second)).release().ptr();
}

PyObject* class_for(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::usage:
            return classes.usage;
        case ErrorKind::bad_input:
            return classes.bad_input;
        case ErrorKind::damaged_stream:
            return classes.damaged_stream;
        case ErrorKind::limit:
            return classes.limit;
        case ErrorKind::io:
            return classes.io;
    }
    return classes.base;
}

}  // namespace

void register_errors(py::module_& module) {
    classes.base = make_class(module, "Error", PyExc_Exception, "Any failure gradcodec reports.");
    classes.usage = make_class(module, "UsageError", bases_of(classes.base, PyExc_ValueError),
                               "A bad codec spec, option or argument.");
    classes.bad_input =
        make_class(module, "BadInputError", bases_of(classes.base, PyExc_ValueError),
                   "Values the codec cannot carry (NaN, out of range, bad shape).");
    classes.damaged_stream =
        make_class(module, "DamagedStreamError", bases_of(classes.base, PyExc_Exception),
                   "Bytes that are not a valid frame or stream.");
    classes.limit = make_class(module, "LimitError", bases_of(classes.base, PyExc_Exception),
                               "A declared size exceeds a cap, or a buffer is too small.");
    classes.io = make_class(module, "IOError", bases_of(classes.base, PyExc_OSError),
                            "Reading or writing a file failed.");
    py::register_exception_translator([](std::exception_ptr raised) {
        try {
            if (raised) std::rethrow_exception(raised);
        } catch (const Error& error) {
            PyErr_SetString(class_for(error.kind()), error.what());
        }
    });
}

}  // namespace gradcodec::python
