#include "gradcodec_hdf5/hdf5_dump.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include "gradcodec_hdf5/hdf5_type_message.hpp"
#include "gradcodec_hdf5/hdf5_types.hpp"
#include "gradcodec_hdf5/libhdf5_reading.hpp"
#include "gradcodec_hdf5/printable.hpp"

namespace gradcodec::hdf5 {
namespace {

// Relative external and virtual source names resolve against INPUT's folder, not the current
// directory. Every open of a dataset uses this list: HDF5 refuses to reopen a dataset that is
// already open under different access properties.
Hid dataset_access() {
    Hid dapl(H5Pcreate(H5P_DATASET_ACCESS));
    H5Pset_efile_prefix(dapl.get(), "${ORIGIN}");
    H5Pset_virtual_prefix(dapl.get(), "${ORIGIN}");
    return dapl;
}

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

std::string join(const std::string& group, const std::string& name) {
    return (group == "/" ? "" : group) + "/" + name;
}

struct Member {
    std::string name;
    H5L_type_t type;
};

// One pass over a group's links in name order: linear, where asking for the i-th name is not.
herr_t collect_member(hid_t, const char* name, const H5L_info_t* info, void* out) {
    static_cast<std::vector<Member>*>(out)->push_back(Member{name, info->type});
    return 0;
}

std::vector<Member> list_members(hid_t group, const std::string& where) {
    std::vector<Member> members;
    hsize_t index = 0;
    check_status(H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, &index, collect_member, &members),
                 ErrorKind::bad_input, where, "cannot list the group's members");
    return members;
}

bool is_relative_inside(const std::string& name) {
    if (name.empty() || name[0] == '/') return false;
    std::size_t start = 0;
    while (start <= name.size()) {
        const std::size_t slash = std::min(name.find('/', start), name.size());
        if (name.compare(start, slash - start, "..") == 0 && slash - start == 2) return false;
        start = slash + 1;
    }
    return true;
}

// External raw storage and virtual datasets read other files: refused unless allowed, and then
// only files below the input's folder, and virtual sources that are not virtual themselves.
void check_storage(hid_t dataset, const std::string& where, const DumpLimits& limits) {
    Hid dcpl = checked(H5Dget_create_plist(dataset), ErrorKind::bad_input, where,
                       "cannot read its creation properties");
    const int external = H5Pget_external_count(dcpl.get());
    const bool is_virtual = H5Pget_layout(dcpl.get()) == H5D_VIRTUAL;
    if (external <= 0 && !is_virtual) return;
    const std::string kind = is_virtual ? "a virtual dataset (its values live in other datasets)"
                                        : "stored in external files";
    if (!limits.allow_external) {
        fail(ErrorKind::bad_input,
             where + ": " + kind +
                 "; refused, since it reads files other than INPUT (--allow-external "
                 "allows files below INPUT's folder)");
    }
    for (int i = 0; i < external; ++i) {
        char name[4096] = {};
        off_t offset = 0;
        hsize_t size = 0;
        H5Pget_external(dcpl.get(), static_cast<unsigned>(i), sizeof name, name, &offset, &size);
        if (!is_relative_inside(name)) {
            fail(ErrorKind::bad_input,
                 where + ": external file '" + name + "' is outside INPUT's folder; refused");
        }
    }
    if (!is_virtual) return;
    std::size_t count = 0;
    H5Pget_virtual_count(dcpl.get(), &count);
    for (std::size_t i = 0; i < count; ++i) {
        const ssize_t file_len = H5Pget_virtual_filename(dcpl.get(), i, nullptr, 0);
        const ssize_t dset_len = H5Pget_virtual_dsetname(dcpl.get(), i, nullptr, 0);
        std::string file(static_cast<std::size_t>(std::max<ssize_t>(file_len, 0)), '\0');
        std::string dset(static_cast<std::size_t>(std::max<ssize_t>(dset_len, 0)), '\0');
        H5Pget_virtual_filename(dcpl.get(), i, file.data(), file.size() + 1);
        H5Pget_virtual_dsetname(dcpl.get(), i, dset.data(), dset.size() + 1);
        if (file != "." && !is_relative_inside(file)) {
            fail(ErrorKind::bad_input,
                 where + ": virtual source file '" + file + "' is outside INPUT's folder; refused");
        }
        if (file != ".") {
            fail(ErrorKind::bad_input, where + ": virtual source in another file ('" + file +
                                           "'); only sources inside INPUT are carried");
        }
        // A source that is virtual itself could lead back here: HDF5 would recurse without end.
        Hid same_file(H5Iget_file_id(dataset));
        Hid source(H5Dopen2(same_file.get(), dset.c_str(), H5P_DEFAULT));
        Hid source_dcpl(source.valid() ? H5Dget_create_plist(source.get()) : H5I_INVALID_HID);
        if (!source_dcpl.valid() || H5Pget_layout(source_dcpl.get()) == H5D_VIRTUAL) {
            fail(ErrorKind::bad_input,
                 where + ": virtual source " + dset + " is missing or virtual itself; refused");
        }
    }
}

std::uint64_t element_count(const std::vector<std::uint64_t>& shape, const std::string& where) {
    std::uint64_t n = 1;
    for (auto d : shape) {
        if (d != 0 && n > UINT64_MAX / d)
            fail(ErrorKind::bad_input, where + ": its shape holds more than 2^64 elements");
        n *= d;
    }
    return n;
}

// Depth-first, groups before their members, members in name order, without recursion: a
// deep tree cannot exhaust the stack, and kMaxGroupDepth bounds the open groups.
struct Walker {
    const std::string& file;
    const DumpVisitor& visitor;
    const DumpLimits& limits;
    std::set<haddr_t> groups_seen;

    struct Frame {
        Hid group;
        std::string path;
        std::vector<Member> members;
        std::size_t next = 0;
    };
    std::vector<Frame> stack;
    bool last_member = false;     // the member being visited is the walk's last, unless a group
    Hid dapl = dataset_access();  // one list for every dataset: made once, not per dataset

    void run(hid_t root) {
        enter(Hid(H5Gopen2(root, "/", H5P_DEFAULT)), "/");
        while (!stack.empty()) {
            Frame& top = stack.back();
            if (top.next == top.members.size()) {
                stack.pop_back();
                continue;
            }
            const Member member = top.members[top.next++];
            last_member = std::all_of(stack.begin(), stack.end(),
                                      [](const Frame& f) { return f.next == f.members.size(); });
            visit(top.group.get(), top.path, member);
        }
    }

    void enter(Hid id, const std::string& path) {
        const std::string where = file + ": " + path;
        if (!id.valid()) fail(ErrorKind::bad_input, where + ": cannot open the group");
        if (stack.size() >= kMaxGroupDepth) {
            fail(ErrorKind::bad_input, where + ": groups nested deeper than " +
                                           std::to_string(kMaxGroupDepth) + " levels; refused");
        }
        H5O_info_t info{};
        check_status(H5Oget_info2(id.get(), &info, H5O_INFO_BASIC), ErrorKind::bad_input, where,
                     "cannot read group info");
        if (!groups_seen.insert(info.addr).second) {
            fail(ErrorKind::bad_input,
                 where +
                     ": group is hard-linked a second time; gradcodec does not carry "
                     "hard-linked groups");
        }
        GroupRecord record{path, read_attributes(id.get(), where)};
        {
            Libhdf5Paused ours;
            visitor.group(record);
        }
        std::vector<Member> members = list_members(id.get(), where);
        stack.push_back(Frame{std::move(id), path, std::move(members)});
    }

    // An object gradcodec cannot carry: an error, or with --skip-unsupported a warning.
    void unsupported(const std::string& message) const {
        if (!limits.skip_unsupported) fail(ErrorKind::bad_input, message);
        std::fprintf(stderr, "gradcodec: warning: %s; skipped (--skip-unsupported)\n",
                     printable(message).c_str());
    }

    void visit(hid_t parent, const std::string& parent_path, const Member& member) {
        const std::string path = join(parent_path, member.name);
        const std::string where = file + ": " + path;
        const char* name = member.name.c_str();
        if (member.type == H5L_TYPE_SOFT || member.type == H5L_TYPE_EXTERNAL) {
            link(parent, path, name);
            return;
        }
        if (member.type != H5L_TYPE_HARD)
            return unsupported(where + ": unsupported user-defined link");
        if (Hid id(H5Dopen2(parent, name, dapl.get())); id.valid()) {
            dataset(std::move(id), path);
            return;
        }
        H5O_info_t info{};
        check_status(H5Oget_info_by_name2(parent, name, &info, H5O_INFO_BASIC, H5P_DEFAULT),
                     ErrorKind::bad_input, where, "cannot open");
        switch (info.type) {
            case H5O_TYPE_GROUP:
                enter(Hid(H5Gopen2(parent, name, H5P_DEFAULT)), path);
                return;
            case H5O_TYPE_DATASET:
                dataset(parent, name, path);
                return;
            default:
                return unsupported(where + ": unsupported object (a named datatype?)");
        }
    }

    void link(hid_t parent, const std::string& path, const char* name) {
        const std::string where = file + ": " + path;
        H5L_info_t info{};
        check_status(H5Lget_info(parent, name, &info, H5P_DEFAULT), ErrorKind::bad_input, where,
                     "cannot read link");
        std::vector<char> value(info.u.val_size + 1, '\0');
        check_status(H5Lget_val(parent, name, value.data(), value.size(), H5P_DEFAULT),
                     ErrorKind::bad_input, where, "cannot read link value");
        LinkRecord record{path, LinkKind::soft, value.data(), ""};
        if (info.type == H5L_TYPE_EXTERNAL) {
            const char* target_file = nullptr;
            const char* target = nullptr;
            unsigned flags = 0;
            check_status(
                H5Lunpack_elink_val(value.data(), value.size(), &flags, &target_file, &target),
                ErrorKind::bad_input, where, "cannot read external link");
            record = LinkRecord{path, LinkKind::external, target, target_file};
        }
        Libhdf5Paused ours;
        visitor.link(record);
    }

    void dataset(hid_t parent, const char* name, const std::string& path) {
        dataset(checked(H5Dopen2(parent, name, dapl.get()), ErrorKind::bad_input,
                        file + ": " + path, "cannot open"),
                path);
    }

    void dataset(Hid id, const std::string& path) {
        const std::string where = file + ": " + path;
        check_storage(id.get(), where, limits);
        Hid type =
            checked(H5Dget_type(id.get()), ErrorKind::bad_input, where, "cannot read its type");
        const auto dtype = dtype_of_hdf5(type.get());
        if (!dtype) return typed(std::move(id), std::move(type), path);
        Hid space = checked(H5Dget_space(id.get()), ErrorKind::bad_input, where,
                            "cannot read its dataspace");
        auto shape = dataspace_shape(space.get(), where);
        limits.check_tensor(where, element_count(shape, where), dtype_size(*dtype));
        DumpDataset found{path, *dtype, std::move(shape), read_attributes(id.get(), where),
                          id.get()};
        Libhdf5Paused ours;
        if (last_member && visitor.last_dataset_next) visitor.last_dataset_next();
        visitor.dataset(found);
    }

    void typed(Hid id, Hid type, const std::string& path) {
        if (!visitor.typed) return;
        const std::string where = file + ": " + path;
        std::string why;
        auto layout = layout_of(type.get(), why);
        if (layout) why = description_problem(encode_type(type.get(), where));
        if (!layout || !why.empty()) {
            return unsupported(where + ": unsupported datatype (" + why +
                               "); gradcodec carries every other HDF5 datatype");
        }
        Hid space = checked(H5Dget_space(id.get()), ErrorKind::bad_input, where,
                            "cannot read its dataspace");
        auto shape = dataspace_shape(space.get(), where);
        limits.check_tensor(where, element_count(shape, where), layout->size);
        TypedDataset found{path,     std::move(shape), read_attributes(id.get(), where),
                           id.get(), std::move(type),  std::move(*layout)};
        Libhdf5Paused ours;
        visitor.typed(found);
    }
};

// Where H5Dread puts variable-length parts: counted against the per-tensor cap as they are
// allocated (a small file may declare huge strings), and freed however the read ends.
struct VlenMemory {
    std::uint64_t cap;
    std::uint64_t spent = 0;
    bool over_cap = false;
    Hid transfer;
    hid_t type = H5I_INVALID_HID, space = H5I_INVALID_HID;
    void* buffer = nullptr;

    VlenMemory(std::uint64_t memory_cap, std::uint64_t already)
        : cap(memory_cap), spent(already), transfer(H5Pcreate(H5P_DATASET_XFER)) {
        H5Pset_vlen_mem_manager(transfer.get(), allocate, this, release, nullptr);
    }
    VlenMemory(const VlenMemory&) = delete;
    VlenMemory& operator=(const VlenMemory&) = delete;
    ~VlenMemory() {
        if (buffer) H5Dvlen_reclaim(type, space, transfer.get(), buffer);
    }

    static void* allocate(std::size_t size, void* self) {
        auto& memory = *static_cast<VlenMemory*>(self);
        if (size > memory.cap - memory.spent) {
            memory.over_cap = true;
            return nullptr;
        }
        memory.spent += size;
        return std::malloc(size);
    }
    static void release(void* block, void*) { std::free(block); }
};

void read_values_into(const std::string& where, hid_t id, DType dtype, std::span<std::byte> out) {
    if (out.empty()) return;
    Hid mem = hdf5_type_of(dtype);
    check_status(H5Dread(id, mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()),
                 ErrorKind::bad_input, where, "cannot read values (damaged file?)");
}

std::vector<std::byte> read_values(const std::string& where, hid_t id, DType dtype,
                                   std::uint64_t count) {
    std::vector<std::byte> data(count * dtype_size(dtype));
    read_values_into(where, id, dtype, data);
    return data;
}

}  // namespace

TypedRecord TypedDataset::read(const std::string& file, std::uint64_t cap) const {
    const std::string where = file + ": " + path;
    Libhdf5Reading reading(file);
    TypedRecord record{path, shape, attributes, encode_type(type.get(), where), {}};
    const std::uint64_t count = element_count(shape, where);
    if (count == 0) return record;
    Hid space = checked(H5Dget_space(id), ErrorKind::bad_input, where, "cannot read its dataspace");
    std::vector<std::byte> memory(count * layout.size);
    const bool variable = layout.kind != ElementLayout::Kind::fixed;
    VlenMemory parts(cap, memory.size());
    const herr_t status = H5Dread(id, type.get(), H5S_ALL, H5S_ALL,
                                  variable ? parts.transfer.get() : H5P_DEFAULT, memory.data());
    if (parts.over_cap) {
        fail(ErrorKind::limit, where + ": its values take more than the cap of " +
                                   std::to_string(cap) +
                                   " bytes per tensor (raise it with --max-tensor-bytes)");
    }
    check_status(status, ErrorKind::bad_input, where, "cannot read values (damaged file?)");
    if (variable) {
        parts.type = type.get();
        parts.space = space.get();
        parts.buffer = memory.data();
    }
    record.data = serialise_elements(layout, memory, count, cap, where);
    return record;
}

std::vector<std::byte> DumpDataset::read(const std::string& file) const {
    Libhdf5Reading reading(file);
    return read_values(file + ": " + path, id, dtype, element_count(shape, file + ": " + path));
}

std::uint64_t DumpDataset::byte_count() const {
    std::uint64_t n = dtype_size(dtype);
    for (auto d : shape) n *= d;
    return n;
}

void DumpDataset::read_into(const std::string& file, std::span<std::byte> out) const {
    Libhdf5Reading reading(file);
    read_values_into(file + ": " + path, id, dtype, out);
}

bool looks_like_hdf5(const std::string& file) {
    start_hdf5();
    Libhdf5Reading reading(file);
    return file != "-" && H5Fis_hdf5(file.c_str()) > 0;
}

Hid open_dump(const std::string& file, bool offer_raw) {
    start_hdf5();
    Libhdf5Reading reading(file);
    if (file == "-") {
        static std::vector<std::uint8_t> image;  // the core driver reads it in place
        image = read_all_stdin();
        Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
        H5Pset_fapl_core(fapl.get(), 1 << 20, 0);
        H5Pset_file_image(fapl.get(), image.data(), image.size());
        return checked(H5Fopen("stdin", H5F_ACC_RDONLY, fapl.get()), ErrorKind::bad_input, "-",
                       "standard input is not a readable HDF5 file");
    }
    if (access(file.c_str(), R_OK) != 0)
        fail(ErrorKind::io, file + ": cannot read: " + std::strerror(errno));
    // A directory passes access(R_OK) but cannot be read as a file: an I/O error like the
    // raw and stream inputs report, not "not an HDF5 file".
    struct stat st {};
    if (stat(file.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        fail(ErrorKind::io, file + ": cannot read: " + std::strerror(EISDIR));
    }
    const htri_t is_hdf5 = H5Fis_hdf5(file.c_str());
    if (is_hdf5 <= 0) {
        fail(ErrorKind::bad_input,
             file + ": not an HDF5 file" +
                 (offer_raw ? " (use --raw f32|f16|f64 --shape AxB for raw values)" : ""));
    }
    return checked(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), ErrorKind::bad_input, file,
                   "cannot open the HDF5 file (damaged?)");
}

void walk_dump(const std::string& file, hid_t root, const DumpVisitor& visitor,
               const DumpLimits& limits) {
    Libhdf5Reading reading(file);
    Walker walker{file, visitor, limits, {}, {}, false, dataset_access()};
    walker.run(root);
}

std::vector<std::byte> read_dataset_at(const std::string& file, hid_t root, const std::string& path,
                                       DType& dtype, std::vector<std::uint64_t>& shape,
                                       const DumpLimits& limits) {
    const std::string where = file + ": " + path;
    Libhdf5Reading reading(file);
    if (H5Lexists(root, path.c_str(), H5P_DEFAULT) <= 0)
        fail(ErrorKind::bad_input, where + ": no such dataset");
    Hid dapl = dataset_access();
    Hid id = checked(H5Dopen2(root, path.c_str(), dapl.get()), ErrorKind::bad_input, where,
                     "not a dataset");
    check_storage(id.get(), where, limits);
    Hid type = checked(H5Dget_type(id.get()), ErrorKind::bad_input, where, "cannot read its type");
    const auto found = dtype_of_hdf5(type.get());
    if (!found)
        fail(ErrorKind::bad_input,
             where + ": unsupported datatype (" + hdf5_class_name(type.get()) + ")");
    dtype = *found;
    Hid space =
        checked(H5Dget_space(id.get()), ErrorKind::bad_input, where, "cannot read its dataspace");
    shape = dataspace_shape(space.get(), where);
    const std::uint64_t n = element_count(shape, where);
    limits.check_tensor(where, n, dtype_size(dtype));
    return read_values(where, id.get(), dtype, n);
}

std::size_t count_datasets(hid_t root) {
    std::size_t count = 0;
    const H5O_iterate_t visit = [](hid_t, const char*, const H5O_info_t* info,
                                   void* data) -> herr_t {
        if (info->type == H5O_TYPE_DATASET) ++*static_cast<std::size_t*>(data);
        return 0;
    };
    return H5Ovisit2(root, H5_INDEX_NAME, H5_ITER_INC, visit, &count, H5O_INFO_BASIC) < 0 ? 0
                                                                                          : count;
}

}  // namespace gradcodec::hdf5
