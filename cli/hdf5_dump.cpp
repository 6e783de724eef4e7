#include "hdf5_dump.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "hdf5_types.hpp"

namespace gradcodec::cli {
namespace {

std::vector<std::uint8_t> read_all_stdin() {
    std::vector<std::uint8_t> bytes;
    std::uint8_t buffer[1 << 16];
    while (true) {
        const ssize_t n = ::read(0, buffer, sizeof buffer);
        if (n < 0) fail(ErrorKind::io, std::string("-: read failed: ") + std::strerror(errno));
        if (n == 0) break;
        bytes.insert(bytes.end(), buffer, buffer + n);
    }
    return bytes;
}

std::string join(const std::string& group, const char* name) {
    return (group == "/" ? "" : group) + "/" + name;
}

struct Walker {
    const std::string& file;
    const DumpVisitor& visitor;
    std::set<haddr_t> groups_seen;

    void group(hid_t id, const std::string& path) {
        H5O_info_t info{};
        check_status(H5Oget_info2(id, &info, H5O_INFO_BASIC), ErrorKind::bad_input, file + ": " + path,
                     "cannot read group info");
        if (!groups_seen.insert(info.addr).second) {
            fail(ErrorKind::bad_input, file + ": " + path +
                                           ": group is hard-linked a second time; gradcodec does not carry "
                                           "hard-linked groups");
        }
        visitor.group(GroupRecord{path, read_attributes(id, file + ": " + path)});
        hsize_t count = 0;
        H5G_info_t ginfo{};
        check_status(H5Gget_info(id, &ginfo), ErrorKind::bad_input, file + ": " + path, "cannot list group");
        count = ginfo.nlinks;
        for (hsize_t i = 0; i < count; ++i) member(id, path, i);
    }

    void member(hid_t parent, const std::string& parent_path, hsize_t index) {
        const ssize_t len = H5Lget_name_by_idx(parent, ".", H5_INDEX_NAME, H5_ITER_INC, index, nullptr, 0, H5P_DEFAULT);
        if (len < 0) fail(ErrorKind::bad_input, file + ": " + parent_path + ": cannot read member names");
        std::string name(static_cast<std::size_t>(len), '\0');
        H5Lget_name_by_idx(parent, ".", H5_INDEX_NAME, H5_ITER_INC, index, name.data(), name.size() + 1, H5P_DEFAULT);
        const std::string path = join(parent_path, name.c_str());
        const std::string where = file + ": " + path;
        H5L_info_t link{};
        check_status(H5Lget_info(parent, name.c_str(), &link, H5P_DEFAULT), ErrorKind::bad_input, where,
                     "cannot read link");
        if (link.type == H5L_TYPE_SOFT || link.type == H5L_TYPE_EXTERNAL) {
            std::vector<char> value(link.u.val_size + 1, '\0');
            check_status(H5Lget_val(parent, name.c_str(), value.data(), value.size(), H5P_DEFAULT),
                         ErrorKind::bad_input, where, "cannot read link value");
            LinkRecord record{path, LinkKind::soft, value.data(), ""};
            if (link.type == H5L_TYPE_EXTERNAL) {
                const char* target_file = nullptr;
                const char* target = nullptr;
                unsigned flags = 0;
                check_status(H5Lunpack_elink_val(value.data(), value.size(), &flags, &target_file, &target),
                             ErrorKind::bad_input, where, "cannot read external link");
                record = LinkRecord{path, LinkKind::external, target, target_file};
            }
            visitor.link(record);
            return;
        }
        if (link.type != H5L_TYPE_HARD) fail(ErrorKind::bad_input, where + ": unsupported user-defined link");
        Hid object = checked(H5Oopen(parent, name.c_str(), H5P_DEFAULT), ErrorKind::bad_input, where, "cannot open");
        switch (H5Iget_type(object.get())) {
            case H5I_GROUP: group(object.get(), path); return;
            case H5I_DATASET: dataset(object.get(), path); return;
            default: fail(ErrorKind::bad_input, where + ": unsupported object (a named datatype?)");
        }
    }

    void dataset(hid_t id, const std::string& path) {
        const std::string where = file + ": " + path;
        Hid type = checked(H5Dget_type(id), ErrorKind::bad_input, where, "cannot read its type");
        const auto dtype = dtype_of_hdf5(type.get());
        if (!dtype) {
            fail(ErrorKind::bad_input, where + ": unsupported datatype (" + hdf5_class_name(type.get()) +
                                           "); gradcodec carries float (f16, bf16, f32, f64), integer and "
                                           "bool datasets");
        }
        Hid space = checked(H5Dget_space(id), ErrorKind::bad_input, where, "cannot read its dataspace");
        visitor.dataset(DumpDataset{path, *dtype, dataspace_shape(space.get(), where),
                                    read_attributes(id, where), id});
    }
};

std::vector<std::byte> read_values(const std::string& where, hid_t id, DType dtype, std::uint64_t count) {
    std::vector<std::byte> data(count * dtype_size(dtype));
    if (count == 0) return data;
    Hid mem = hdf5_type_of(dtype);
    check_status(H5Dread(id, mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), ErrorKind::bad_input, where,
                 "cannot read values (damaged file?)");
    return data;
}

}  // namespace

std::vector<std::byte> DumpDataset::read(const std::string& file) const {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    return read_values(file + ": " + path, id, dtype, n);
}

bool looks_like_hdf5(const std::string& file) { return file != "-" && H5Fis_hdf5(file.c_str()) > 0; }

Hid open_dump(const std::string& file) {
    if (file == "-") {
        static std::vector<std::uint8_t> image;  // the core driver reads it in place
        image = read_all_stdin();
        Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
        H5Pset_fapl_core(fapl.get(), 1 << 20, 0);
        H5Pset_file_image(fapl.get(), image.data(), image.size());
        return checked(H5Fopen("stdin", H5F_ACC_RDONLY, fapl.get()), ErrorKind::bad_input, "-",
                       "standard input is not a readable HDF5 file");
    }
    if (access(file.c_str(), R_OK) != 0) fail(ErrorKind::io, file + ": cannot read: " + std::strerror(errno));
    // A directory passes access(R_OK) but cannot be read as a file: an I/O error like the
    // raw and stream inputs report, not "not an HDF5 file".
    struct stat st {};
    if (stat(file.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        fail(ErrorKind::io, file + ": cannot read: " + std::strerror(EISDIR));
    }
    const htri_t is_hdf5 = H5Fis_hdf5(file.c_str());
    if (is_hdf5 <= 0) {
        fail(ErrorKind::bad_input, file + ": not an HDF5 file (use --raw f32|f16|f64 --shape AxB for raw values)");
    }
    return checked(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), ErrorKind::bad_input, file,
                   "cannot open the HDF5 file (damaged?)");
}

void walk_dump(const std::string& file, hid_t root, const DumpVisitor& visitor) {
    Walker walker{file, visitor, {}};
    Hid group = checked(H5Gopen2(root, "/", H5P_DEFAULT), ErrorKind::bad_input, file, "cannot open the root group");
    walker.group(group.get(), "/");
}

std::vector<std::byte> read_dataset_at(const std::string& file, hid_t root, const std::string& path,
                                       DType& dtype, std::vector<std::uint64_t>& shape) {
    const std::string where = file + ": " + path;
    if (H5Lexists(root, path.c_str(), H5P_DEFAULT) <= 0) fail(ErrorKind::bad_input, where + ": no such dataset");
    Hid id = checked(H5Dopen2(root, path.c_str(), H5P_DEFAULT), ErrorKind::bad_input, where, "not a dataset");
    Hid type = checked(H5Dget_type(id.get()), ErrorKind::bad_input, where, "cannot read its type");
    const auto found = dtype_of_hdf5(type.get());
    if (!found) fail(ErrorKind::bad_input, where + ": unsupported datatype (" + hdf5_class_name(type.get()) + ")");
    dtype = *found;
    Hid space = checked(H5Dget_space(id.get()), ErrorKind::bad_input, where, "cannot read its dataspace");
    shape = dataspace_shape(space.get(), where);
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    return read_values(where, id.get(), dtype, n);
}

namespace {

// A stream with valid bytes can still name one object twice or put one under a dataset or a
// link. That is a bad stream (exit 3), not an I/O failure, so it is checked before HDF5 is
// asked to create the object. Parents are inspected by link type, never opened through a
// link: an external link in the stream must not make decode open another file.
// True when `path` exists as a real (hard-linked) group.
bool is_group(hid_t file, const std::string& path) {
    H5L_info_t link{};
    H5O_info_t info{};
    return H5Lexists(file, path.c_str(), H5P_DEFAULT) > 0 && H5Lget_info(file, path.c_str(), &link, H5P_DEFAULT) >= 0 &&
           link.type == H5L_TYPE_HARD && H5Oget_info_by_name2(file, path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) >= 0 &&
           info.type == H5O_TYPE_GROUP;
}

void require_new_object(hid_t file, const std::string& path, const std::string& where) {
    for (std::size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        const std::string parent = path.substr(0, slash);
        if (H5Lexists(file, parent.c_str(), H5P_DEFAULT) <= 0) return;  // created as a group
        if (!is_group(file, parent)) fail(ErrorKind::damaged_stream, where + ": its parent " + parent + " is not a group in the stream");
    }
    if (H5Lexists(file, path.c_str(), H5P_DEFAULT) > 0) {
        fail(ErrorKind::damaged_stream, where + ": the stream names this object twice");
    }
}

}  // namespace

DumpWriter::DumpWriter(const std::string& path, hid_t fapl)
    : path_(path),
      file_(checked(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl), ErrorKind::io, path,
                    "cannot create the HDF5 file")) {}

void DumpWriter::write(const GroupRecord& group) {
    const std::string where = path_ + ": " + group.path;
    Hid id;
    if (group.path == "/" || is_group(file_.get(), group.path)) {
        // The root, or a group already made as the parent of an earlier record (writers SHOULD,
        // not MUST, emit a group first): its attributes go onto it.
        id = checked(H5Gopen2(file_.get(), group.path.c_str(), H5P_DEFAULT), ErrorKind::io, where, "cannot open the group");
    } else {
        require_new_object(file_.get(), group.path, where);
        Hid lcpl(H5Pcreate(H5P_LINK_CREATE));
        H5Pset_create_intermediate_group(lcpl.get(), 1);
        id = checked(H5Gcreate2(file_.get(), group.path.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                     ErrorKind::io, where, "cannot create the group");
    }
    write_attributes(id.get(), group.attributes, where);
}

void DumpWriter::write(const LinkRecord& link) {
    const std::string where = path_ + ": " + link.path;
    require_new_object(file_.get(), link.path, where);
    Hid lcpl(H5Pcreate(H5P_LINK_CREATE));
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    const herr_t status =
        link.kind == LinkKind::soft
            ? H5Lcreate_soft(link.target.c_str(), file_.get(), link.path.c_str(), lcpl.get(), H5P_DEFAULT)
            : H5Lcreate_external(link.target_file.c_str(), link.target.c_str(), file_.get(), link.path.c_str(),
                                 lcpl.get(), H5P_DEFAULT);
    check_status(status, ErrorKind::io, where, "cannot create the link");
}

void DumpWriter::write(const TensorRecord& tensor, std::span<const std::byte> values, hid_t dcpl) {
    const std::string where = path_ + ": " + tensor.path;
    Hid type = hdf5_type_of(tensor.dtype);
    Hid space = make_dataspace(tensor.shape, where);
    require_new_object(file_.get(), tensor.path, where);
    Hid lcpl(H5Pcreate(H5P_LINK_CREATE));
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    Hid id = checked(H5Dcreate2(file_.get(), tensor.path.c_str(), type.get(), space.get(), lcpl.get(), dcpl,
                                H5P_DEFAULT),
                     ErrorKind::io, where, "cannot create the dataset");
    if (!values.empty()) {
        check_status(H5Dwrite(id.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), ErrorKind::io,
                     where, "cannot write the values");
    }
    write_attributes(id.get(), tensor.attributes, where);
}

void DumpWriter::close() {
    if (!file_.valid()) return;
    check_status(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), ErrorKind::io, path_, "write failed");
    const herr_t status = H5Fclose(file_.release());
    check_status(status, ErrorKind::io, path_, "write failed on close");
}

}  // namespace gradcodec::cli
