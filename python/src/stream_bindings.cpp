// Dump streams from Python: a reader yielding (name, array, attrs) per tensor and a writer that
// encodes arrays into tensor records. The writer builds its file with the library's AtomicFile
// (unnamed beside its target, fsynced, published on close), so a failure leaves no partial
// stream and an existing file is replaced only when asked.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <string>

#include <gradcodec/atomic_file.hpp>
#include <gradcodec/codec.hpp>
#include <gradcodec/error.hpp>
#include <gradcodec/stream.hpp>

#include "attributes.hpp"
#include "bindings.hpp"
#include "buffers.hpp"
#include "limits.hpp"

namespace gradcodec::python {
namespace py = pybind11;

namespace {

struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// A record's path as the reader yields it: without the leading '/' of the stream's absolute
// HDF5 paths, as StreamWriter takes names, `gradcodec inspect` prints them and h5py's visit()
// lists the datasets of the file `gradcodec decode` makes ("step_00001/fc.weight").
std::string display_name(const std::string& path) {
    return path.size() > 1 && path[0] == '/' ? path.substr(1) : path;
}

File open_file(const std::string& path, const char* mode) {
    File file{std::fopen(path.c_str(), mode)};
    if (!file) fail(ErrorKind::io, path + ": " + std::strerror(errno));
    return file;
}

class PyStreamReader {
  public:
    PyStreamReader(const std::string& path, std::optional<std::uint64_t> max_elements,
                   std::optional<std::int64_t> max_tensor_bytes,
                   std::optional<std::int64_t> max_total_bytes)
        : path_(path),
          caps_(max_tensor_bytes, max_total_bytes),
          file_(open_file(path, "rb")),
          source_(file_.get(), path) {
        ReadLimits limits = default_read_limits();
        if (max_elements) limits.max_elements = *max_elements;
        reader_.emplace(source_, limits);
    }

    // The next tensor as (name, array, attrs). Groups and links are passed by; a typed dataset
    // (strings, compound, ...: NumPy has no general form of HDF5's types, and the gradcodec CLI
    // rebuilds them as HDF5) is passed by with a UserWarning naming it, so that nothing is
    // left out unsaid.
    py::object next() {
        while (reader_) {
            std::optional<Record> record;
            {
                py::gil_scoped_release unlocked;
                record = reader_->next();
            }
            if (!record) {
                reader_.reset();
                break;
            }
            if (auto* tensor = std::get_if<TensorRecord>(&*record)) return decoded(*tensor);
            if (auto* typed = std::get_if<TypedRecord>(&*record)) warn_skipped(*typed);
        }
        throw py::stop_iteration();
    }

  private:
    // A warning turned into an error by the caller's filters propagates as that exception.
    void warn_skipped(const TypedRecord& typed) const {
        const std::string message = path_ + ": " + display_name(typed.path) +
                                    ": a typed dataset (not a tensor of numbers), skipped; "
                                    "`gradcodec decode` rebuilds it in HDF5";
        if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) != 0) throw py::error_already_set();
    }

    py::tuple decoded(const TensorRecord& tensor) {
        const std::string name = display_name(tensor.path);
        const TensorMeta meta{name, tensor.dtype, tensor.shape};
        // From the record's header, before allocating: a 188-byte record may declare 2^31 zeros.
        caps_.take(path_ + ": " + name, meta.element_count(), tensor.dtype);
        std::vector<py::ssize_t> shape(tensor.shape.begin(), tensor.shape.end());
        py::array values(numpy_dtype(tensor.dtype), shape);
        std::span<std::byte> out{static_cast<std::byte*>(values.mutable_data()),
                                 static_cast<std::size_t>(values.nbytes())};
        try {
            py::gil_scoped_release unlocked;
            decode_tensor(tensor.codec_id, meta, tensor.payload, out);
        } catch (const Error& error) {
            throw Error(error.kind(), path_ + ": " + name + ": " + error.what());
        }
        return py::make_tuple(name, values, attributes_to_python(tensor.attributes));
    }

    std::string path_;
    DecodeCaps caps_;
    File file_;
    FileSource source_;
    std::optional<StreamReader> reader_;
};

class PyStreamWriter {
  public:
    PyStreamWriter(const std::string& path, const std::string& codec, bool overwrite)
        : path_(path),
          codec_(Codec::compile(codec)),
          file_(open_output(path, overwrite)),
          writer_(std::make_unique<StreamWriter>(*file_)) {}

    ~PyStreamWriter() { abandon(); }

    void write_group(const std::string& path, const py::dict& attributes) {
        const std::string name = absolute(path);
        ensure_parents(name);
        if (!groups_.insert(name).second)
            fail(ErrorKind::usage, "group " + name + " was written already");
        writer().write(GroupRecord{name, attributes_from_python(attributes)});
    }

    void write(const std::string& path, const py::buffer& array,
               const std::optional<std::string>& codec, const py::dict& attributes,
               const std::optional<std::string>& dtype) {
        const TensorView values = float_tensor_view(array, dtype, false, "array");
        const std::string name = absolute(path);
        const Codec chosen = codec ? Codec::compile(*codec) : codec_;
        TensorRecord record{name,
                            values.dtype,
                            values.shape,
                            attributes_from_python(attributes),
                            chosen.id(),
                            chosen.spec(),
                            {}};
        ensure_parents(name);
        {
            py::gil_scoped_release unlocked;
            record.payload = chosen.encode(values.meta(name), values.bytes);
        }
        // Under the GIL: one writer's records must not interleave across threads.
        writer().write(record);
    }

    // Ends the stream and publishes the file (fsynced, with its directory). A file that
    // appeared at the path meanwhile is kept unless overwrite=True.
    void close() {
        writer().finish();
        writer_.reset();
        try {
            py::gil_scoped_release unlocked;
            file_->commit();
        } catch (const FileExistsError&) {
            file_.reset();
            fail(ErrorKind::usage, path_ +
                                       ": already exists: it appeared while the stream was "
                                       "written (pass overwrite=True to replace it)");
        } catch (...) {
            file_.reset();
            throw;
        }
        file_.reset();
    }

    // Drops the unfinished stream; nothing is left at the target.
    void abandon() {
        writer_.reset();
        file_.reset();
    }

  private:
    StreamWriter& writer() {
        if (!writer_) fail(ErrorKind::usage, path_ + ": the stream writer is closed");
        return *writer_;
    }

    static std::string absolute(const std::string& path) {
        return path.starts_with('/') ? path : "/" + path;
    }

    // Groups come before what they hold, the root first, as readers expect.
    void ensure_parents(const std::string& path) {
        for (std::size_t slash = 0; slash != std::string::npos; slash = path.find('/', slash + 1)) {
            const std::string parent = slash == 0 ? "/" : path.substr(0, slash);
            if (parent == path) break;
            if (groups_.insert(parent).second) writer().write(GroupRecord{parent, {}});
        }
    }

    static std::unique_ptr<AtomicFile> open_output(const std::string& path, bool overwrite) {
        try {
            return std::make_unique<AtomicFile>(path, overwrite);
        } catch (const FileExistsError&) {
            fail(ErrorKind::usage, path + ": already exists (pass overwrite=True to replace it)");
        }
    }

    std::string path_;
    Codec codec_;
    std::unique_ptr<AtomicFile> file_;
    std::unique_ptr<StreamWriter> writer_;
    std::set<std::string> groups_;
};

}  // namespace

void register_stream(py::module_& module) {
    py::class_<PyStreamReader>(module, "StreamReader")
        .def(py::init<const std::string&, std::optional<std::uint64_t>, std::optional<std::int64_t>,
                      std::optional<std::int64_t>>(),
             py::arg("path"), py::arg("max_elements") = py::none(), py::kw_only(),
             py::arg("max_tensor_bytes") = py::none(), py::arg("max_total_bytes") = py::none())
        .def("__iter__", [](py::object self) { return self; })
        .def("__next__", &PyStreamReader::next);
    py::class_<PyStreamWriter>(module, "StreamWriter")
        .def(py::init<const std::string&, const std::string&, bool>(), py::arg("path"),
             py::arg("codec") = "lossless", py::kw_only(), py::arg("overwrite") = false)
        .def("write_group", &PyStreamWriter::write_group, py::arg("path"),
             py::arg("attrs") = py::dict())
        .def("write", &PyStreamWriter::write, py::arg("name"), py::arg("array"), py::kw_only(),
             py::arg("codec") = py::none(), py::arg("attrs") = py::dict(),
             py::arg("dtype") = py::none())
        .def("close", &PyStreamWriter::close)
        .def("abandon", &PyStreamWriter::abandon)
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](PyStreamWriter& self, py::object type, py::object, py::object) {
            if (type.is_none()) {
                self.close();
            } else {
                self.abandon();
            }
            return false;
        });
}

}  // namespace gradcodec::python
