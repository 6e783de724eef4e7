#include "gradcodec_hdf5/dump_writer.hpp"

#include <cerrno>
#include <cstring>

#include "gradcodec_hdf5/hdf5_type_message.hpp"
#include "gradcodec_hdf5/hdf5_types.hpp"
#include "gradcodec_hdf5/typed_values.hpp"

namespace gradcodec::hdf5 {
namespace {

Hid file_access_for(const std::string& path) {
    start_hdf5();
    Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
    // The 1.8 format stores attributes over 64 KiB densely; the oldest format cannot hold them.
    H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST);
    if (path.rfind("/proc/self/fd/", 0) == 0) H5Pset_fapl_stdio(fapl.get());
    return fapl;
}

bool is_io_errno(int e) {
    return e == ENOSPC || e == EDQUOT || e == EFBIG || e == EIO || e == EROFS;
}

// HDF5 refusing to create what the stream declares is a bad stream (exit 3); a full disk
// underneath is an I/O failure (exit 4), and says so.
Hid created(hid_t id, const std::string& where, const std::string& what) {
    if (id >= 0) return Hid(id);
    const int e = errno;
    if (is_io_errno(e)) fail(ErrorKind::io, where + ": " + what + ": " + std::strerror(e));
    fail(ErrorKind::damaged_stream,
         where + ": " + what + " (HDF5 refuses what the stream declares)");
}

std::vector<std::string> components(const std::string& path, const std::string& where) {
    if (path.empty() || path[0] != '/')
        fail(ErrorKind::damaged_stream, where + ": the path does not start with '/'");
    std::vector<std::string> parts;
    std::size_t start = 1;
    while (start <= path.size()) {
        const std::size_t slash = std::min(path.find('/', start), path.size());
        std::string part = path.substr(start, slash - start);
        // HDF5 reads "." as "this group", so "/./x" would silently become "/x"; ".." is an
        // ordinary name to HDF5, and a legal one.
        if (part.empty() || part == ".") {
            fail(ErrorKind::damaged_stream, where + ": the path has an empty or '.' component");
        }
        parts.push_back(std::move(part));
        start = slash + 1;
    }
    return parts;
}

}  // namespace

DumpWriter::DumpWriter(const std::string& path, std::string name, hid_t fapl)
    : path_(std::move(name)),
      file_(checked(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT,
                              fapl == H5P_DEFAULT ? file_access_for(path).get() : fapl),
                    ErrorKind::io, path_, "cannot create the HDF5 file")),
      nodes_{Node{Kind::group, {}}} {}

DumpWriter::Place DumpWriter::locate(const std::string& path, const std::string& where) {
    const std::vector<std::string> parts = components(path, where);
    Place place{
        created(H5Gopen2(file_.get(), "/", H5P_DEFAULT), where, "cannot open the root group"),
        parts.back(), 0, nullptr};
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        const std::string& part = parts[i];
        auto found = nodes_[place.parent_node].children.find(part);
        if (found == nodes_[place.parent_node].children.end()) {
            // Writers SHOULD, not MUST, send a group before its members: make it now.
            errno = 0;
            place.parent = created(
                H5Gcreate2(place.parent.get(), part.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                where, "cannot create the group " + part);
            nodes_.push_back(Node{Kind::group, {}});
            const auto index = static_cast<std::uint32_t>(nodes_.size() - 1);
            nodes_[place.parent_node].children.emplace(part, index);
            place.parent_node = index;
            continue;
        }
        if (nodes_[found->second].kind != Kind::group) {
            fail(ErrorKind::damaged_stream,
                 where + ": its parent '" + part + "' is not a group in the stream");
        }
        place.parent = created(H5Gopen2(place.parent.get(), part.c_str(), H5P_DEFAULT), where,
                               "cannot open the group");
        place.parent_node = found->second;
    }
    const auto& siblings = nodes_[place.parent_node].children;
    const auto leaf = siblings.find(place.leaf);
    if (leaf != siblings.end()) place.existing = &nodes_[leaf->second];
    return place;
}

void DumpWriter::add(const Place& place, Kind kind) {
    nodes_.push_back(Node{kind, {}});
    nodes_[place.parent_node].children.emplace(place.leaf,
                                               static_cast<std::uint32_t>(nodes_.size() - 1));
}

void DumpWriter::write(const GroupRecord& group) {
    const std::string where = path_ + ": " + group.path;
    if (group.path == "/") {
        Hid root =
            created(H5Gopen2(file_.get(), "/", H5P_DEFAULT), where, "cannot open the root group");
        write_attributes(root.get(), group.attributes, where);
        return;
    }
    Place place = locate(group.path, where);
    Hid id;
    if (place.existing) {
        // A group made earlier as the parent of a record: its attributes go onto it.
        if (place.existing->kind != Kind::group)
            fail(ErrorKind::damaged_stream, where + ": the stream names this object twice");
        id = created(H5Gopen2(place.parent.get(), place.leaf.c_str(), H5P_DEFAULT), where,
                     "cannot open the group");
    } else {
        errno = 0;
        id = created(H5Gcreate2(place.parent.get(), place.leaf.c_str(), H5P_DEFAULT, H5P_DEFAULT,
                                H5P_DEFAULT),
                     where, "cannot create the group");
        add(place, Kind::group);
    }
    write_attributes(id.get(), group.attributes, where);
}

void DumpWriter::write(const LinkRecord& link) {
    const std::string where = path_ + ": " + link.path;
    Place place = locate(link.path, where);
    if (place.existing)
        fail(ErrorKind::damaged_stream, where + ": the stream names this object twice");
    errno = 0;
    const herr_t status =
        link.kind == LinkKind::soft
            ? H5Lcreate_soft(link.target.c_str(), place.parent.get(), place.leaf.c_str(),
                             H5P_DEFAULT, H5P_DEFAULT)
            : H5Lcreate_external(link.target_file.c_str(), link.target.c_str(), place.parent.get(),
                                 place.leaf.c_str(), H5P_DEFAULT, H5P_DEFAULT);
    if (status < 0) created(H5I_INVALID_HID, where, "cannot create the link");
    add(place, Kind::link);
}

Hid DumpWriter::create_dataset(const TensorRecord& tensor, hid_t type, hid_t dcpl,
                               const std::string& where) {
    Hid space = make_dataspace(tensor.shape, where);
    Place place = locate(tensor.path, where);
    if (place.existing)
        fail(ErrorKind::damaged_stream, where + ": the stream names this object twice");
    errno = 0;
    Hid id = created(H5Dcreate2(place.parent.get(), place.leaf.c_str(), type, space.get(),
                                H5P_DEFAULT, dcpl, H5P_DEFAULT),
                     where, "cannot create the dataset");
    add(place, Kind::dataset);
    return id;
}

void DumpWriter::write_chunks(const TensorRecord& tensor, hid_t dcpl,
                              std::span<const ChunkBytes> chunks) {
    const std::string where = path_ + ": " + tensor.path;
    Hid type = hdf5_type_of(tensor.dtype);
    Hid id = create_dataset(tensor, type.get(), dcpl, where);
    for (const ChunkBytes& chunk : chunks) {
        const std::vector<hsize_t> offset(chunk.offset.begin(), chunk.offset.end());
        errno = 0;
        if (H5Dwrite_chunk(id.get(), H5P_DEFAULT, 0, offset.data(), chunk.bytes.size(),
                           chunk.bytes.data()) < 0) {
            fail(ErrorKind::io, where + ": cannot write a chunk" +
                                    (errno ? std::string(": ") + std::strerror(errno) : ""));
        }
    }
    write_attributes(id.get(), tensor.attributes, where);
}

void DumpWriter::write(const TensorRecord& tensor, std::span<const std::byte> values, hid_t dcpl) {
    const std::string where = path_ + ": " + tensor.path;
    Hid type = hdf5_type_of(tensor.dtype);
    Hid id = create_dataset(tensor, type.get(), dcpl, where);
    if (!values.empty()) {
        errno = 0;
        if (H5Dwrite(id.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0) {
            fail(ErrorKind::io, where + ": cannot write the values" +
                                    (errno ? std::string(": ") + std::strerror(errno) : ""));
        }
    }
    write_attributes(id.get(), tensor.attributes, where);
}

void DumpWriter::write_slabs(const TensorRecord& tensor, std::span<const std::uint64_t> chunk,
                             const std::function<void(const SlabWrite&)>& fill) {
    const std::string where = path_ + ": " + tensor.path;
    Hid type = hdf5_type_of(tensor.dtype);
    Hid dcpl = checked(H5Pcreate(H5P_DATASET_CREATE), ErrorKind::io, where,
                       "cannot create the dataset's properties");
    const std::vector<hsize_t> chunk_dims(chunk.begin(), chunk.end());
    const std::uint64_t zero = 0;  // every dtype's +0.0 (and 0) is all zero bits
    if (H5Pset_chunk(dcpl.get(), static_cast<int>(chunk_dims.size()), chunk_dims.data()) < 0 ||
        H5Pset_fill_value(dcpl.get(), type.get(), &zero) < 0 ||
        H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_INCR) < 0) {
        fail(ErrorKind::damaged_stream,
             where +
                 ": cannot lay the dataset out in chunks (HDF5 refuses what the stream declares)");
    }
    Hid id = create_dataset(tensor, type.get(), dcpl.get(), where);
    Hid file_space = checked(H5Dget_space(id.get()), ErrorKind::io, where,
                             "cannot read the dataset's dataspace");
    fill([&](std::span<const std::uint64_t> start, std::span<const std::uint64_t> count,
             std::span<const std::byte> values) {
        const std::vector<hsize_t> first(start.begin(), start.end());
        const std::vector<hsize_t> size(count.begin(), count.end());
        Hid memory = checked(H5Screate_simple(static_cast<int>(size.size()), size.data(), nullptr),
                             ErrorKind::io, where, "cannot make a slab's dataspace");
        errno = 0;
        if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, first.data(), nullptr,
                                size.data(), nullptr) < 0 ||
            H5Dwrite(id.get(), type.get(), memory.get(), file_space.get(), H5P_DEFAULT,
                     values.data()) < 0) {
            fail(ErrorKind::io, where + ": cannot write the values" +
                                    (errno ? std::string(": ") + std::strerror(errno) : ""));
        }
    });
    write_attributes(id.get(), tensor.attributes, where);
}

void DumpWriter::write(const TypedRecord& typed, std::uint64_t cap) {
    const std::string where = path_ + ": " + typed.path;
    Hid type = decode_type(typed.type, where);
    std::string why;
    const auto layout = layout_of(type.get(), why);
    if (!layout) fail(ErrorKind::damaged_stream, where + ": type description: " + why);
    std::uint64_t count = 1;
    for (auto d : typed.shape) {
        if (d != 0 && count > UINT64_MAX / d)
            fail(ErrorKind::damaged_stream, where + ": shape overflows 64 bits");
        count *= d;
    }
    const RebuiltElements values = rebuild_elements(*layout, typed.data, count, cap, where);
    Hid space = make_dataspace(typed.shape, where);
    Place place = locate(typed.path, where);
    if (place.existing)
        fail(ErrorKind::damaged_stream, where + ": the stream names this object twice");
    errno = 0;
    Hid id = created(H5Dcreate2(place.parent.get(), place.leaf.c_str(), type.get(), space.get(),
                                H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                     where, "cannot create the dataset");
    add(place, Kind::dataset);
    if (!values.memory.empty()) {
        errno = 0;
        if (H5Dwrite(id.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.memory.data()) <
            0) {
            fail(ErrorKind::io, where + ": cannot write the values" +
                                    (errno ? std::string(": ") + std::strerror(errno) : ""));
        }
    }
    write_attributes(id.get(), typed.attributes, where);
}

void DumpWriter::close() {
    if (!file_.valid()) return;
    errno = 0;
    const auto io_failure = [&](const char* what) {
        fail(ErrorKind::io,
             path_ + ": " + what + (errno ? std::string(": ") + std::strerror(errno) : ""));
    };
    if (H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) < 0) io_failure("write failed");
    if (H5Fclose(file_.release()) < 0) io_failure("write failed on close");
}

}  // namespace gradcodec::hdf5
