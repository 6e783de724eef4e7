#include "gradcodec_hdf5/hdf5_types.hpp"

#include <cerrno>
#include <cstring>

#include "gradcodec_hdf5/dtype_of_hdf5.hpp"

namespace gradcodec::hdf5 {
namespace {

bool is_h5py_bool(hid_t type) {
    if (H5Tget_class(type) != H5T_ENUM || H5Tget_size(type) != 1 || H5Tget_nmembers(type) != 2)
        return false;
    for (unsigned i = 0; i < 2; ++i) {
        char* name = H5Tget_member_name(type, i);
        signed char value = 0;
        H5Tget_member_value(type, i, &value);
        const bool ok = name && ((std::strcmp(name, "FALSE") == 0 && value == 0) ||
                                 (std::strcmp(name, "TRUE") == 0 && value == 1));
        H5free_memory(name);
        if (!ok) return false;
    }
    return true;
}

Hid make_float16(bool brain) {
    // h5py's recipe for float16: a binary32 copy with its fields moved, then shrunk.
    Hid t(H5Tcopy(H5T_IEEE_F32LE));
    if (brain) {
        H5Tset_fields(t.get(), 15, 7, 8, 0, 7);
        H5Tset_size(t.get(), 2);
        H5Tset_ebias(t.get(), 127);
    } else {
        H5Tset_fields(t.get(), 15, 10, 5, 0, 10);
        H5Tset_size(t.get(), 2);
        H5Tset_ebias(t.get(), 15);
    }
    return t;
}

Hid string_type(const Attribute& a) {
    Hid t(H5Tcopy(H5T_C_S1));
    H5Tset_size(t.get(), a.kind == AttrKind::vlen_string ? H5T_VARIABLE : a.string_size);
    H5Tset_cset(t.get(), a.cset == 1 ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
    H5Tset_strpad(t.get(), a.strpad == 0   ? H5T_STR_NULLTERM
                           : a.strpad == 1 ? H5T_STR_NULLPAD
                                           : H5T_STR_SPACEPAD);
    return t;
}

// Attributes are small by nature: one over this many bytes is refused as hostile.
constexpr std::uint64_t kMaxAttributeBytes = 1ull << 30;

std::uint64_t count_of(const std::vector<std::uint64_t>& shape, const std::string& where) {
    std::uint64_t n = 1;
    for (auto d : shape) {
        if (d != 0 && n > kMaxAttributeBytes / d) {
            fail(ErrorKind::bad_input, where + ": declares more than " +
                                           std::to_string(kMaxAttributeBytes) +
                                           " elements; refused");
        }
        n *= d;
    }
    return n;
}

Attribute read_one_attribute(hid_t object, const char* name, const std::string& where) {
    const std::string at = where + " attribute '" + name + "'";
    Hid attr = checked(H5Aopen(object, name, H5P_DEFAULT), ErrorKind::bad_input, at, "cannot open");
    Hid type = checked(H5Aget_type(attr.get()), ErrorKind::bad_input, at, "cannot read its type");
    Hid space =
        checked(H5Aget_space(attr.get()), ErrorKind::bad_input, at, "cannot read its dataspace");
    Attribute a;
    a.name = name;
    a.shape = dataspace_shape(space.get(), at);
    const std::uint64_t n = count_of(a.shape, at);
    if (H5Tget_class(type.get()) == H5T_STRING) {
        a.cset = H5Tget_cset(type.get()) == H5T_CSET_UTF8 ? 1 : 0;
        const H5T_str_t pad = H5Tget_strpad(type.get());
        a.strpad = pad == H5T_STR_NULLTERM ? 0 : pad == H5T_STR_NULLPAD ? 1 : 2;
        if (H5Tis_variable_str(type.get()) > 0) {
            a.kind = AttrKind::vlen_string;
            Hid mem = string_type(a);
            std::vector<char*> strings(n, nullptr);
            if (n == 0) return a;
            check_status(H5Aread(attr.get(), mem.get(), strings.data()), ErrorKind::bad_input, at,
                         "cannot read");
            for (char* s : strings) {
                const std::uint32_t len = s ? static_cast<std::uint32_t>(std::strlen(s)) : 0;
                for (int i = 0; i < 4; ++i)
                    a.data.push_back(static_cast<std::uint8_t>(len >> (8 * i)));
                a.data.insert(a.data.end(), s, s + len);
            }
            H5Dvlen_reclaim(mem.get(), space.get(), H5P_DEFAULT, strings.data());
        } else {
            a.kind = AttrKind::fixed_string;
            a.string_size = static_cast<std::uint32_t>(H5Tget_size(type.get()));
            a.data.resize(n * a.string_size);
            if (n == 0) return a;
            Hid mem = string_type(a);
            check_status(H5Aread(attr.get(), mem.get(), a.data.data()), ErrorKind::bad_input, at,
                         "cannot read");
        }
        return a;
    }
    const auto dtype = dtype_of_hdf5(type.get());
    if (!dtype) {
        fail(ErrorKind::bad_input,
             at + ": unsupported datatype (" + hdf5_class_name(type.get()) +
                 "); gradcodec carries float, integer, bool and string attributes");
    }
    a.kind = AttrKind::numeric;
    a.dtype = *dtype;
    a.data.resize(n * dtype_size(a.dtype));
    if (n == 0) return a;  // nothing to read; HDF5 refuses a null buffer even for no elements
    Hid mem = hdf5_type_of(a.dtype);
    check_status(H5Aread(attr.get(), mem.get(), a.data.data()), ErrorKind::bad_input, at,
                 "cannot read");
    return a;
}

}  // namespace

std::optional<DType> dtype_of_hdf5(hid_t type) {
    if (H5Tget_class(type) == H5T_ENUM)
        return is_h5py_bool(type) ? std::optional(DType::bool8) : std::nullopt;
    return hdf5::dtype_of_number_type(type);
}

Hid hdf5_type_of(DType dtype) {
    switch (dtype) {
        case DType::f16:
            return make_float16(false);
        case DType::bf16:
            return make_float16(true);
        case DType::f32:
            return Hid(H5Tcopy(H5T_IEEE_F32LE));
        case DType::f64:
            return Hid(H5Tcopy(H5T_IEEE_F64LE));
        case DType::i8:
            return Hid(H5Tcopy(H5T_STD_I8LE));
        case DType::i16:
            return Hid(H5Tcopy(H5T_STD_I16LE));
        case DType::i32:
            return Hid(H5Tcopy(H5T_STD_I32LE));
        case DType::i64:
            return Hid(H5Tcopy(H5T_STD_I64LE));
        case DType::u8:
            return Hid(H5Tcopy(H5T_STD_U8LE));
        case DType::u16:
            return Hid(H5Tcopy(H5T_STD_U16LE));
        case DType::u32:
            return Hid(H5Tcopy(H5T_STD_U32LE));
        case DType::u64:
            return Hid(H5Tcopy(H5T_STD_U64LE));
        case DType::bool8: {
            Hid t(H5Tenum_create(H5T_NATIVE_INT8));
            signed char v = 0;
            H5Tenum_insert(t.get(), "FALSE", &v);
            v = 1;
            H5Tenum_insert(t.get(), "TRUE", &v);
            return t;
        }
    }
    return Hid();
}

std::string hdf5_class_name(hid_t type) {
    switch (H5Tget_class(type)) {
        case H5T_INTEGER:
            return "integer of " + std::to_string(H5Tget_size(type)) + " bytes";
        case H5T_FLOAT:
            return "float of " + std::to_string(H5Tget_size(type)) +
                   " bytes with an unusual layout";
        case H5T_STRING:
            return "string";
        case H5T_BITFIELD:
            return "bitfield";
        case H5T_OPAQUE:
            return "opaque";
        case H5T_COMPOUND:
            return "compound";
        case H5T_REFERENCE:
            return "reference";
        case H5T_ENUM:
            return "enum";
        case H5T_VLEN:
            return "variable-length sequence";
        case H5T_ARRAY:
            return "array";
        default:
            return "unknown class";
    }
}

std::vector<std::uint64_t> dataspace_shape(hid_t space, const std::string& where) {
    const H5S_class_t cls = H5Sget_simple_extent_type(space);
    if (cls == H5S_SCALAR) return {};
    if (cls != H5S_SIMPLE) fail(ErrorKind::bad_input, where + ": null dataspace is not supported");
    const int rank = H5Sget_simple_extent_ndims(space);
    if (rank < 0) fail(ErrorKind::bad_input, where + ": cannot read the dataspace");
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    return {dims.begin(), dims.end()};
}

Hid make_dataspace(const std::vector<std::uint64_t>& shape, const std::string& where) {
    // Only a stream's declarations reach here: a shape HDF5 cannot hold is a bad stream.
    if (shape.empty())
        return checked(H5Screate(H5S_SCALAR), ErrorKind::damaged_stream, where,
                       "cannot create dataspace");
    const std::vector<hsize_t> dims(shape.begin(), shape.end());
    return checked(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                   ErrorKind::damaged_stream, where, "HDF5 cannot hold a dataspace of this shape");
}

namespace {

herr_t collect_name(hid_t, const char* name, const H5A_info_t*, void* out) {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
}

}  // namespace

std::vector<Attribute> read_attributes(hid_t object, const std::string& where) {
    // One pass for the names in name order: asking for the i-th name each time is quadratic.
    std::vector<std::string> names;
    hsize_t index = 0;
    check_status(H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, &index, collect_name, &names),
                 ErrorKind::bad_input, where, "cannot read attribute names");
    std::vector<Attribute> out;
    out.reserve(names.size());
    for (const auto& name : names) out.push_back(read_one_attribute(object, name.c_str(), where));
    return out;
}

void write_attributes(hid_t object, const std::vector<Attribute>& attributes,
                      const std::string& where) {
    for (const auto& a : attributes) {
        const std::string at = where + " attribute '" + a.name + "'";
        // A group given twice (the root, or one made earlier as a parent) can collide here.
        if (H5Aexists(object, a.name.c_str()) > 0)
            fail(ErrorKind::damaged_stream, at + ": set twice in the stream");
        Hid type = a.kind == AttrKind::numeric ? hdf5_type_of(a.dtype) : string_type(a);
        Hid space = make_dataspace(a.shape, at);
        errno = 0;
        const hid_t created =
            H5Acreate2(object, a.name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT);
        if (created < 0 && (errno == ENOSPC || errno == EFBIG || errno == EIO || errno == EDQUOT)) {
            fail(ErrorKind::io, at + ": cannot create: " + std::strerror(errno));
        }
        Hid attr = checked(created, ErrorKind::damaged_stream, at,
                           "cannot create (HDF5 refuses what the stream declares)");
        herr_t status = 0;
        if (a.data.empty()) {
            continue;  // no elements (or only empty strings' lengths): nothing to write
        } else if (a.kind == AttrKind::vlen_string) {
            std::vector<std::string> strings;
            std::size_t pos = 0;
            while (pos + 4 <= a.data.size()) {
                std::uint32_t len = 0;
                for (int i = 0; i < 4; ++i) len |= std::uint32_t{a.data[pos + i]} << (8 * i);
                strings.emplace_back(reinterpret_cast<const char*>(a.data.data() + pos + 4), len);
                pos += 4 + len;
            }
            std::vector<const char*> pointers;
            for (const auto& s : strings) pointers.push_back(s.c_str());
            status = H5Awrite(attr.get(), type.get(), pointers.data());
        } else {
            status = H5Awrite(attr.get(), type.get(), a.data.data());
        }
        check_status(status, ErrorKind::io, at, "cannot write");
    }
}

}  // namespace gradcodec::hdf5
