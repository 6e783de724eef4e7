#include "format/record_body.hpp"

#include <string>
#include <unordered_set>

#include "format/record_layout.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/tensor.hpp"

namespace gradcodec {
namespace {

// Readers refuse a dimension above kMaxDimension, so a writer never writes one.
void put_shape(ByteWriter& w, const std::vector<std::uint64_t>& shape) {
    for (auto d : shape) {
        if (d > kMaxDimension) {
            fail(ErrorKind::bad_input,
                 "shape " + shape_to_string(shape) + " has a dimension above 2^63 - 1");
        }
    }
    w.u8(static_cast<std::uint8_t>(shape.size()));
    for (auto d : shape) w.u64(d);
}

std::vector<std::uint64_t> get_shape(ByteReader& r) {
    const std::uint8_t rank = r.u8();
    if (rank > kMaxRank)
        r.damaged("rank " + std::to_string(rank) + " exceeds " + std::to_string(kMaxRank));
    std::vector<std::uint64_t> shape(rank);
    for (auto& d : shape) d = r.u64();
    return shape;
}

// `path` names the object in the message: with thousands of objects in a dump, "more than
// 4096 attributes" alone would leave the user to search for it.
void put_attributes(ByteWriter& w, const std::vector<Attribute>& attrs, const std::string& path) {
    if (attrs.size() > kMaxAttributes) {
        fail(ErrorKind::bad_input, path + ": " + std::to_string(attrs.size()) +
                                       " attributes, more than the " +
                                       std::to_string(kMaxAttributes) + " a record can carry");
    }
    w.u16(static_cast<std::uint16_t>(attrs.size()));
    for (const auto& a : attrs) {
        w.string(a.name);
        w.u8(static_cast<std::uint8_t>(a.kind));
        w.u8(a.kind == AttrKind::numeric ? static_cast<std::uint8_t>(a.dtype) : 0);
        w.u8(a.cset);
        w.u8(a.strpad);
        w.u32(a.string_size);
        put_shape(w, a.shape);
        w.u64(a.data.size());
        w.bytes(a.data);
    }
}

// Record paths name HDF5 objects (FORMAT.md: absolute, '/'-separated): a leading '/', no
// empty component, no trailing '/', no NUL (HDF5 would cut the name there). Only a group may
// be the root "/". Link targets are not paths of records and are not checked here.
std::string read_object_path(ByteReader& r, bool root_allowed) {
    std::string path = r.string(kMaxPathLength);
    const bool absolute = !path.empty() && path[0] == '/';
    const bool clean = absolute && path.find('\0') == std::string::npos &&
                       path.find("//") == std::string::npos &&
                       (path.size() == 1 || path.back() != '/');
    if (!absolute || !clean || (path == "/" && !root_allowed)) {
        std::string shown;
        for (char c : path.substr(0, 200)) shown += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
        r.damaged("path '" + shown + "' is not " +
                  (path == "/" ? "allowed for a tensor or link"
                               : "an HDF5 object path ('/' first, no empty part, no NUL)"));
    }
    return path;
}

std::uint64_t element_count(ByteReader& r, const std::vector<std::uint64_t>& shape) {
    std::uint64_t n = 1;
    for (auto d : shape) {
        if (d > kMaxDimension)
            r.damaged("shape " + shape_to_string(shape) + " has a dimension above 2^63 - 1");
        if (d != 0 && n > UINT64_MAX / d) r.damaged("shape overflows 64 bits");
        n *= d;
    }
    return n;
}

// vlen string data is (u32 length, bytes) per element and must fill its section exactly.
void check_vlen_strings(ByteReader& outer, std::span<const std::uint8_t> data, std::uint64_t n) {
    ByteReader r(data, "attribute strings");
    for (std::uint64_t i = 0; i < n; ++i) r.bytes(r.u32());
    if (r.remaining() != 0) outer.damaged("variable-length strings do not fill their section");
}

std::vector<Attribute> get_attributes(ByteReader& r) {
    const std::uint16_t count = r.u16();
    if (count > kMaxAttributes) r.damaged(std::to_string(count) + " attributes exceed the limit");
    std::vector<Attribute> attrs;
    std::unordered_set<std::string> names;
    for (std::uint16_t i = 0; i < count; ++i) {
        Attribute a;
        a.name = r.string(kMaxPathLength);
        // HDF5 cannot create an attribute without a name, nor two of one name on an object.
        if (a.name.empty()) r.damaged("attribute " + std::to_string(i) + " has no name");
        if (!names.insert(a.name).second) r.damaged("attribute '" + a.name + "' appears twice");
        const std::uint8_t kind = r.u8();
        if (kind > 2)
            r.damaged("attribute '" + a.name + "' has unknown kind " + std::to_string(kind));
        a.kind = static_cast<AttrKind>(kind);
        const std::uint8_t code = r.u8();
        a.cset = r.u8();
        a.strpad = r.u8();
        a.string_size = r.u32();
        a.shape = get_shape(r);
        const std::uint64_t length = r.u64();
        const auto data = r.bytes(length);
        const std::uint64_t n = element_count(r, a.shape);
        if (a.kind == AttrKind::numeric) {
            const auto dtype = dtype_from_code(code);
            if (!dtype)
                r.damaged("attribute '" + a.name + "' has unknown dtype " + std::to_string(code));
            a.dtype = *dtype;
            if (n > length || n * dtype_size(a.dtype) != length)
                r.damaged("attribute '" + a.name + "' size mismatch");
        } else if (a.kind == AttrKind::fixed_string) {
            if (a.string_size == 0 || n > length || n * a.string_size != length) {
                r.damaged("attribute '" + a.name + "' string size mismatch");
            }
        } else {
            if (n > length / 4) r.damaged("attribute '" + a.name + "' declares too many strings");
            check_vlen_strings(r, data, n);
        }
        if (a.cset > 1 || a.strpad > 2)
            r.damaged("attribute '" + a.name + "' has an unknown string type");
        a.data.assign(data.begin(), data.end());
        attrs.push_back(std::move(a));
    }
    return attrs;
}

}  // namespace

std::vector<std::uint8_t> group_body(const GroupRecord& record) {
    std::vector<std::uint8_t> out;
    ByteWriter w(out);
    w.string(record.path);
    put_attributes(w, record.attributes, record.path);
    return out;
}

std::vector<std::uint8_t> link_body(const LinkRecord& record) {
    std::vector<std::uint8_t> out;
    ByteWriter w(out);
    w.string(record.path);
    w.u8(static_cast<std::uint8_t>(record.kind));
    w.string(record.target);
    w.string(record.target_file);
    return out;
}

std::vector<std::uint8_t> tensor_head(const TensorRecord& record, std::uint64_t payload_size) {
    std::vector<std::uint8_t> out;
    ByteWriter w(out);
    w.string(record.path);
    w.u8(static_cast<std::uint8_t>(record.dtype));
    put_shape(w, record.shape);
    put_attributes(w, record.attributes, record.path);
    w.u16(record.codec_id);
    w.string(record.codec_spec);
    w.u64(payload_size);
    return out;
}

std::vector<std::uint8_t> typed_head(const TypedRecord& record) {
    if (record.type.empty() || record.type.size() > kMaxTypeDescription) {
        fail(ErrorKind::bad_input,
             record.path + ": a type description of " + std::to_string(record.type.size()) +
                 " bytes; the format carries 1 to " + std::to_string(kMaxTypeDescription));
    }
    std::vector<std::uint8_t> out;
    ByteWriter w(out);
    w.string(record.path);
    put_shape(w, record.shape);
    put_attributes(w, record.attributes, record.path);
    w.u32(static_cast<std::uint32_t>(record.type.size()));
    w.bytes(record.type);
    w.u64(record.data.size());
    return out;
}

GroupRecord parse_group(ByteReader& r) {
    GroupRecord g;
    g.path = read_object_path(r, true);
    g.attributes = get_attributes(r);
    r.expect_end();
    return g;
}

LinkRecord parse_link(ByteReader& r) {
    LinkRecord l;
    l.path = read_object_path(r, false);
    const std::uint8_t kind = r.u8();
    if (kind > 1) r.damaged("unknown link kind " + std::to_string(kind));
    l.kind = static_cast<LinkKind>(kind);
    l.target = r.string(kMaxPathLength);
    l.target_file = r.string(kMaxPathLength);
    r.expect_end();
    if (l.target.empty()) r.damaged("link '" + l.path + "' has no target");
    if ((l.kind == LinkKind::external) == l.target_file.empty()) {
        r.damaged("link '" + l.path + "': " +
                  (l.kind == LinkKind::external ? "an external link needs a target file"
                                                : "a soft link has no target file"));
    }
    return l;
}

TensorRecord parse_tensor(std::vector<std::uint8_t>&& body, const std::string& what,
                          const ReadLimits& limits) {
    ByteReader r(body, what);
    TensorRecord t;
    t.path = read_object_path(r, false);
    const std::uint8_t code = r.u8();
    const auto dtype = dtype_from_code(code);
    if (!dtype) r.damaged("unknown dtype code " + std::to_string(code));
    t.dtype = *dtype;
    t.shape = get_shape(r);
    const std::uint64_t n = element_count(r, t.shape);
    // TensorMeta::byte_count would call this bad input; in a stream it is damage.
    if (n > UINT64_MAX / dtype_size(t.dtype)) r.damaged("tensor size in bytes overflows 64 bits");
    if (n > limits.max_elements) {
        fail(ErrorKind::limit,
             t.path + ": shape " + shape_to_string(t.shape) + " declares " + std::to_string(n) +
                 " elements, over the cap max_elements=" + std::to_string(limits.max_elements));
    }
    t.attributes = get_attributes(r);
    t.codec_id = r.u16();
    t.codec_spec = r.string(kMaxSpecLength);
    const std::uint64_t payload_length = r.u64();
    const std::uint64_t payload_offset = r.position();
    r.bytes(payload_length);
    r.expect_end();
    // The payload is the body's tail: move it down instead of holding a second copy.
    body.erase(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(payload_offset));
    t.payload = std::move(body);
    return t;
}

TypedRecord parse_typed(std::vector<std::uint8_t>&& body, const std::string& what,
                        const ReadLimits& limits) {
    ByteReader r(body, what);
    TypedRecord t;
    t.path = read_object_path(r, false);
    t.shape = get_shape(r);
    const std::uint64_t n = element_count(r, t.shape);
    if (n > limits.max_elements) {
        fail(ErrorKind::limit,
             t.path + ": shape " + shape_to_string(t.shape) + " declares " + std::to_string(n) +
                 " elements, over the cap max_elements=" + std::to_string(limits.max_elements));
    }
    t.attributes = get_attributes(r);
    const std::uint32_t type_length = r.u32();
    if (type_length == 0 || type_length > kMaxTypeDescription) {
        r.damaged("type description of " + std::to_string(type_length) + " bytes (1 to " +
                  std::to_string(kMaxTypeDescription) + " allowed)");
    }
    const auto type = r.bytes(type_length);
    t.type.assign(type.begin(), type.end());
    const std::uint64_t data_length = r.u64();
    const std::uint64_t data_offset = r.position();
    r.bytes(data_length);
    r.expect_end();
    // The data is the body's tail: move it down instead of holding a second copy.
    body.erase(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(data_offset));
    t.data = std::move(body);
    return t;
}

std::string peek_path(std::span<const std::uint8_t> body) {
    try {
        ByteReader r(body, "");
        std::string path = r.string(256);
        for (char c : path)
            if (static_cast<unsigned char>(c) < 0x20) return {};
        return path;
    } catch (const Error&) {
        return {};
    }
}

}  // namespace gradcodec
