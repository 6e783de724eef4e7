#include "gradcodec_hdf5/typed_values.hpp"

#include <cstring>

#include "gradcodec_hdf5/hdf5_type_message.hpp"
#include "gradcodec_hdf5/hdf5_types.hpp"

namespace gradcodec::hdf5 {
namespace {

using Kind = ElementLayout::Kind;

std::uint64_t saturating_product(std::uint64_t a, std::uint64_t b) {
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

std::optional<ElementLayout> layout_at(hid_t type, int depth, std::string& why) {
    if (depth > kMaxTypeDepth) {
        why = "types nested deeper than " + std::to_string(kMaxTypeDepth) + " levels";
        return std::nullopt;
    }
    ElementLayout l;
    l.size = H5Tget_size(type);
    if (l.size == 0) {
        why = "a type of 0 bytes";
        return std::nullopt;
    }
    l.least_bytes = l.size;
    // The element's bytes, unless a part of it lives elsewhere (variable length).
    const auto fixed_unless = [&](bool variable) -> std::optional<ElementLayout> {
        if (!variable) {
            l.kind = Kind::fixed;
            l.parts.clear();
            l.least_bytes = l.size;
        }
        return l;
    };
    switch (H5Tget_class(type)) {
        case H5T_INTEGER:
        case H5T_FLOAT:
        case H5T_BITFIELD:
        case H5T_OPAQUE:
        case H5T_ENUM:
            return l;
        case H5T_STRING:
            if (H5Tis_variable_str(type) <= 0) return l;
            if (l.size != sizeof(char*)) break;
            l.kind = Kind::vlen_string;
            l.least_bytes = 4;
            return l;
        case H5T_VLEN: {
            if (l.size != sizeof(hvl_t)) break;
            Hid base(H5Tget_super(type));
            auto part = base.valid() ? layout_at(base.get(), depth + 1, why) : std::nullopt;
            if (!part) return std::nullopt;
            l.kind = Kind::sequence;
            l.least_bytes = 4;
            l.parts.push_back(std::move(*part));
            return l;
        }
        case H5T_ARRAY: {
            Hid base(H5Tget_super(type));
            auto part = base.valid() ? layout_at(base.get(), depth + 1, why) : std::nullopt;
            if (!part) return std::nullopt;
            if (part->size == 0 || l.size % part->size != 0) break;
            l.kind = Kind::array;
            l.count = l.size / part->size;
            l.least_bytes = saturating_product(l.count, part->least_bytes);
            const bool variable = part->kind != Kind::fixed;
            l.parts.push_back(std::move(*part));
            return fixed_unless(variable);
        }
        case H5T_COMPOUND: {
            const int members = H5Tget_nmembers(type);
            if (members <= 0) break;
            l.kind = Kind::compound;
            l.least_bytes = 0;
            bool variable = false;
            for (int i = 0; i < members; ++i) {
                const auto index = static_cast<unsigned>(i);
                Hid member(H5Tget_member_type(type, index));
                auto part = member.valid() ? layout_at(member.get(), depth + 1, why) : std::nullopt;
                if (!part) return std::nullopt;
                part->offset = H5Tget_member_offset(type, index);
                if (part->offset > l.size || part->size > l.size - part->offset) break;
                variable = variable || part->kind != Kind::fixed;
                l.least_bytes =
                    std::min(UINT64_MAX - part->least_bytes, l.least_bytes) + part->least_bytes;
                l.parts.push_back(std::move(*part));
            }
            if (l.parts.size() != static_cast<std::size_t>(members)) break;
            return fixed_unless(variable);
        }
        case H5T_REFERENCE:
            why =
                "a reference type (object or region references point into the file and "
                "cannot travel)";
            return std::nullopt;
        case H5T_TIME:
            why = "an HDF5 time type";
            return std::nullopt;
        default:
            break;
    }
    if (why.empty()) why = "a type of unexpected layout";
    return std::nullopt;
}

[[noreturn]] void over_cap(const std::string& where, std::uint64_t cap) {
    fail(ErrorKind::limit, where + ": its values take more than the cap of " + std::to_string(cap) +
                               " bytes per tensor (raise it with --max-tensor-bytes)");
}

// Calls `visit(part, address)` for each member of a compound element or each element of an
// array element at `at`: the writer and the reader walk these alike.
template <class Byte, class Visit>
void for_each_part(const ElementLayout& l, Byte* at, Visit&& visit) {
    if (l.kind == Kind::compound) {
        for (const auto& member : l.parts) visit(member, at + member.offset);
        return;
    }
    for (std::uint64_t i = 0; i < l.count; ++i) visit(l.parts[0], at + i * l.parts[0].size);
}

struct Serialiser {
    std::vector<std::uint8_t>& out;
    std::uint64_t cap;
    const std::string& where;

    void append(const void* bytes, std::size_t n) {
        if (n > cap - out.size()) over_cap(where, cap);
        const auto* b = static_cast<const std::uint8_t*>(bytes);
        out.insert(out.end(), b, b + n);
    }

    void length(std::uint64_t n) {
        if (n > UINT32_MAX)
            fail(ErrorKind::bad_input, where + ": a variable-length element over 2^32");
        const std::uint8_t le[4] = {static_cast<std::uint8_t>(n), static_cast<std::uint8_t>(n >> 8),
                                    static_cast<std::uint8_t>(n >> 16),
                                    static_cast<std::uint8_t>(n >> 24)};
        append(le, 4);
    }

    void element(const ElementLayout& l, const std::byte* at) {
        switch (l.kind) {
            case Kind::fixed:
                append(at, l.size);
                return;
            case Kind::vlen_string: {
                const char* s = nullptr;
                std::memcpy(&s, at, sizeof s);
                const std::size_t n = s ? std::strlen(s) : 0;
                length(n);
                append(s, n);
                return;
            }
            case Kind::sequence: {
                hvl_t h{};
                std::memcpy(&h, at, sizeof h);
                length(h.len);
                const auto* base = static_cast<const std::byte*>(h.p);
                for (std::size_t i = 0; i < h.len; ++i)
                    element(l.parts[0], base + i * l.parts[0].size);
                return;
            }
            case Kind::compound:
            case Kind::array:
                for_each_part(l, at, [this](const ElementLayout& part, auto* part_at) {
                    element(part, part_at);
                });
                return;
        }
    }
};

struct Rebuilder {
    std::span<const std::uint8_t> data;
    std::size_t pos = 0;
    std::uint64_t spent = 0;  // memory taken so far
    std::uint64_t cap;
    const std::string& where;
    RebuiltElements& out;

    [[noreturn]] void damaged(const std::string& why) const {
        fail(ErrorKind::damaged_stream, where + ": typed data: " + why);
    }

    std::span<const std::uint8_t> take(std::uint64_t n) {
        if (n > data.size() - pos) damaged("truncated (a value runs past the data)");
        const auto span = data.subspan(pos, static_cast<std::size_t>(n));
        pos += static_cast<std::size_t>(n);
        return span;
    }

    std::uint32_t length() {
        const auto b = take(4);
        return std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 | std::uint32_t{b[2]} << 16 |
               std::uint32_t{b[3]} << 24;
    }

    std::byte* allocate(std::uint64_t count, std::uint64_t size) {
        if (size != 0 && count > (cap - spent) / size) over_cap(where, cap);
        spent += count * size;
        out.storage.push_back(
            std::make_unique<std::byte[]>(static_cast<std::size_t>(count * size)));
        return out.storage.back().get();
    }

    void element(const ElementLayout& l, std::byte* at) {
        switch (l.kind) {
            case Kind::fixed: {
                const auto b = take(l.size);
                std::memcpy(at, b.data(), b.size());
                return;
            }
            case Kind::vlen_string: {
                const auto b = take(length());
                // HDF5 strings end at their first NUL: one inside could not be rebuilt.
                if (std::memchr(b.data(), 0, b.size())) damaged("a string holding a NUL byte");
                std::byte* s = allocate(b.size() + 1, 1);
                if (!b.empty()) std::memcpy(s, b.data(), b.size());
                const char* pointer = reinterpret_cast<const char*>(s);
                std::memcpy(at, &pointer, sizeof pointer);
                return;
            }
            case Kind::sequence: {
                const std::uint32_t n = length();
                const ElementLayout& base = l.parts[0];
                if (n > (data.size() - pos) / base.least_bytes)
                    damaged("a sequence of " + std::to_string(n) +
                            " elements, longer than the data");
                std::byte* elements = allocate(n, base.size);
                for (std::uint32_t i = 0; i < n; ++i) element(base, elements + i * base.size);
                const hvl_t h{n, n ? elements : nullptr};
                std::memcpy(at, &h, sizeof h);
                return;
            }
            case Kind::compound:
            case Kind::array:
                for_each_part(l, at, [this](const ElementLayout& part, auto* part_at) {
                    element(part, part_at);
                });
                return;
        }
    }
};

}  // namespace

std::optional<ElementLayout> layout_of(hid_t type, std::string& why) {
    return layout_at(type, 0, why);
}

std::string type_summary(hid_t type) {
    switch (H5Tget_class(type)) {
        case H5T_STRING:
            return H5Tis_variable_str(type) > 0 ? "vlen string" : "string";
        case H5T_INTEGER:
            return "int" + std::to_string(8 * H5Tget_size(type));
        case H5T_FLOAT:
            return "float" + std::to_string(8 * H5Tget_size(type));
        case H5T_VLEN:
            return "vlen";
        default:  // bitfield, opaque, compound, enum, array, reference: the class is the summary
            return hdf5_class_name(type);
    }
}

std::vector<std::uint8_t> serialise_elements(const ElementLayout& layout,
                                             std::span<const std::byte> memory, std::uint64_t count,
                                             std::uint64_t cap, const std::string& where) {
    std::vector<std::uint8_t> out;
    if (layout.kind == Kind::fixed) {
        if (memory.size() > cap) over_cap(where, cap);
        out.assign(reinterpret_cast<const std::uint8_t*>(memory.data()),
                   reinterpret_cast<const std::uint8_t*>(memory.data()) + memory.size());
        return out;
    }
    Serialiser s{out, cap, where};
    for (std::uint64_t i = 0; i < count; ++i) s.element(layout, memory.data() + i * layout.size);
    return out;
}

RebuiltElements rebuild_elements(const ElementLayout& layout, std::span<const std::uint8_t> data,
                                 std::uint64_t count, std::uint64_t cap, const std::string& where) {
    RebuiltElements out;
    Rebuilder r{data, 0, 0, cap, where, out};
    if (count > data.size() / layout.least_bytes) {
        r.damaged(std::to_string(count) + " elements cannot fit " + std::to_string(data.size()) +
                  " bytes");
    }
    if (count > cap / layout.size) over_cap(where, cap);
    r.spent = count * layout.size;
    out.memory.resize(static_cast<std::size_t>(count * layout.size));
    if (layout.kind == Kind::fixed) {
        if (data.size() != out.memory.size())
            r.damaged(std::to_string(data.size()) + " bytes for " + std::to_string(count) +
                      " elements of " + std::to_string(layout.size));
        if (!data.empty()) std::memcpy(out.memory.data(), data.data(), data.size());
        return out;
    }
    for (std::uint64_t i = 0; i < count; ++i)
        r.element(layout, out.memory.data() + i * layout.size);
    if (r.pos != data.size())
        r.damaged(std::to_string(data.size() - r.pos) + " bytes follow the last element");
    return out;
}

}  // namespace gradcodec::hdf5
