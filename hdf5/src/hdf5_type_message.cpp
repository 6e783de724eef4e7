#include "gradcodec_hdf5/hdf5_type_message.hpp"

#include <cstring>

namespace gradcodec::hdf5 {
namespace {

// HDF5 datatype classes as the message numbers them.
enum MessageClass : unsigned {
    kFixedPoint = 0,
    kFloatingPoint = 1,
    kTime = 2,
    kString = 3,
    kBitfield = 4,
    kOpaque = 5,
    kCompound = 6,
    kReference = 7,
    kEnum = 8,
    kVariableLength = 9,
    kArray = 10,
};

// H5Tencode's prefix: the datatype message's id and the encoding's version.
constexpr std::uint8_t kEncodedDatatype = 3;
constexpr std::uint8_t kEncodingVersion = 0;
constexpr std::size_t kMaxArrayRank = 32;

// libhdf5 1.10 overruns its fill buffer for an element with variable-length parts whose file
// size passes 1 MiB; real types with strings or sequences in them are far smaller than this.
constexpr std::uint64_t kMaxVariableTypeSize = 1 << 16;

struct TypeFacts {
    unsigned type_class;
    std::uint64_t size;
    bool variable = false;  // holds a variable-length string or sequence
    unsigned version = 1;
};

// Reads the message the way libhdf5's decoder does, but never past the description's end.
class MessageCheck {
  public:
    MessageCheck(std::span<const std::uint8_t> bytes, const std::string& where)
        : bytes_(bytes), where_(where) {}

    void whole() {
        if (le(1) != kEncodedDatatype || le(1) != kEncodingVersion)
            bad("it does not start as H5Tencode's output (03 00)");
        type(0);
        if (pos_ != bytes_.size())
            bad(std::to_string(bytes_.size() - pos_) + " bytes follow the datatype message");
    }

  private:
    [[noreturn]] void bad(const std::string& why) const {
        fail(ErrorKind::damaged_stream, where_ + ": type description: " + why);
    }

    void need(std::uint64_t n) const {
        if (n > bytes_.size() - pos_) bad("truncated (a field runs past its bytes)");
    }

    std::uint64_t le(int n) {
        need(static_cast<std::uint64_t>(n));
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i)
            v |= std::uint64_t{bytes_[pos_ + static_cast<std::size_t>(i)]} << (8 * i);
        pos_ += static_cast<std::size_t>(n);
        return v;
    }

    void skip(std::uint64_t n) {
        need(n);
        pos_ += static_cast<std::size_t>(n);
    }

    // A NUL-terminated name; versions 1 and 2 pad it to a multiple of 8 bytes.
    void name(unsigned version) {
        const auto* start = bytes_.data() + pos_;
        const auto* nul =
            static_cast<const std::uint8_t*>(std::memchr(start, 0, bytes_.size() - pos_));
        if (!nul) bad("a member name without its terminating NUL");
        const auto length = static_cast<std::uint64_t>(nul - start);
        skip(version < 3 ? (length + 8) / 8 * 8 : length + 1);
    }

    void bit_field(std::uint64_t size, std::uint64_t first, std::uint64_t bits) const {
        if (bits == 0 || first + bits > 8 * size) bad("a bit field outside the type's bytes");
    }

    // libhdf5 refuses a member or base type of a later message version than its parent's.
    TypeFacts part(int depth, unsigned parent_version) {
        const TypeFacts facts = type(depth);
        if (facts.version > parent_version)
            bad("a member or base type of a later message version than its parent");
        return facts;
    }

    TypeFacts type(int depth) {
        if (depth > kMaxTypeDepth)
            bad("types nested deeper than " + std::to_string(kMaxTypeDepth) + " levels");
        const auto class_version = static_cast<unsigned>(le(1));
        const unsigned type_class = class_version & 0x0f;
        const unsigned version = class_version >> 4;
        if (version < 1 || version > 3) bad("datatype message version " + std::to_string(version));
        const std::uint64_t flags = le(3);
        const std::uint64_t size = le(4);
        if (size == 0) bad("a type of 0 bytes");
        bool variable = false;
        switch (type_class) {
            case kFixedPoint:
            case kBitfield: {
                const std::uint64_t offset = le(2);
                bit_field(size, offset, le(2));
                break;
            }
            case kFloatingPoint: {
                const std::uint64_t offset = le(2);
                bit_field(size, offset, le(2));
                const std::uint64_t exponent_at = le(1);
                bit_field(size, exponent_at, le(1));
                const std::uint64_t mantissa_at = le(1);
                bit_field(size, mantissa_at, le(1));
                if (((flags >> 8) & 0xff) >= 8 * size) bad("a sign bit outside the type's bytes");
                skip(4);  // exponent bias
                break;
            }
            case kString:
                if ((flags & 0x0f) > 2 || ((flags >> 4) & 0x0f) > 1)
                    bad("a string padding or character set HDF5 does not define");
                break;
            case kOpaque: {
                const std::uint64_t tag = flags & 0xff;
                if (tag % 8 != 0) bad("an opaque tag not padded to 8 bytes");
                skip(tag);
                break;
            }
            case kCompound:
                variable = compound(version, flags & 0xffff, size, depth);
                break;
            case kEnum: {
                const std::uint64_t members = flags & 0xffff;
                if (members == 0) bad("an enum without members");
                const TypeFacts base = part(depth + 1, version);
                if (base.size != size) bad("an enum whose size is not its base's");
                if (base.type_class != kFixedPoint)
                    bad("an enum over a type that is not an integer");
                for (std::uint64_t i = 0; i < members; ++i) name(version);
                if (members > (bytes_.size() - pos_) / base.size) bad("truncated enum values");
                skip(members * base.size);
                break;
            }
            case kVariableLength: {
                const bool is_string = (flags & 0x0f) == 1;
                if ((flags & 0x0f) > 1) bad("a variable-length kind HDF5 does not define");
                if (is_string && (((flags >> 4) & 0x0f) > 2 || ((flags >> 8) & 0x0f) > 1))
                    bad("a string padding or character set HDF5 does not define");
                const TypeFacts base = part(depth + 1, version);
                // libhdf5 copies a string's strlen() times its base size: bytes, nothing else.
                if (is_string && (base.type_class != kFixedPoint || base.size != 1))
                    bad("a variable-length string whose characters are not single bytes");
                variable = true;
                break;
            }
            case kArray:
                variable = array(version, size, depth);
                break;
            case kTime:
                bad("an HDF5 time type, which gradcodec does not carry");
            case kReference:
                bad("a reference type, which gradcodec does not carry");
            default:
                bad("unknown datatype class " + std::to_string(type_class));
        }
        if (variable && size > kMaxVariableTypeSize) {
            bad("a type of " + std::to_string(size) +
                " bytes with variable-length parts (at most " +
                std::to_string(kMaxVariableTypeSize) + ")");
        }
        return {type_class, size, variable, version};
    }

    bool compound(unsigned version, std::uint64_t members, std::uint64_t size, int depth) {
        if (members == 0) bad("a compound type without members");
        // Version 3 stores offsets in as few bytes as the compound's size needs.
        int offset_bytes = 4;
        if (version >= 3) {
            int log2 = 0;
            while ((size >> (log2 + 1)) != 0) ++log2;
            offset_bytes = log2 / 8 + 1;
        }
        bool variable = false;
        for (std::uint64_t i = 0; i < members; ++i) {
            name(version);
            const std::uint64_t offset = le(offset_bytes);
            std::uint64_t elements = 1;
            if (version == 1) {
                const std::uint64_t rank = le(1);
                if (rank > 4) bad("a version 1 compound member of rank " + std::to_string(rank));
                skip(11);  // reserved, permutation, reserved
                for (int d = 0; d < 4; ++d) {
                    const std::uint64_t dim = le(4);
                    if (static_cast<std::uint64_t>(d) < rank) {
                        if (dim == 0) bad("a member dimension of 0");
                        elements *= dim;  // both below 2^32: no overflow
                        if (elements > UINT32_MAX) bad("a member larger than 4 GiB");
                    }
                }
            }
            const TypeFacts member = part(depth + 1, version);
            if (offset > size || member.size * elements > size - offset)
                bad("a member that does not fit its compound");
            variable = variable || member.variable;
        }
        return variable;
    }

    bool array(unsigned version, std::uint64_t size, int depth) {
        if (version < 2) bad("an array type in a version 1 message");
        const std::uint64_t rank = le(1);
        if (rank == 0 || rank > kMaxArrayRank) bad("an array of rank " + std::to_string(rank));
        if (version < 3) skip(3);
        std::uint64_t elements = 1;
        for (std::uint64_t d = 0; d < rank; ++d) {
            const std::uint64_t dim = le(4);
            if (dim == 0 || elements > UINT32_MAX / dim) bad("array dimensions of 0 or over 4 GiB");
            elements *= dim;
        }
        if (version < 3) skip(4 * rank);  // permutation
        const TypeFacts base = part(depth + 1, version);
        if (base.size * elements != size) bad("an array whose size is not its elements' sizes");
        return base.variable;
    }

    std::span<const std::uint8_t> bytes_;
    std::size_t pos_ = 0;
    const std::string& where_;
};

}  // namespace

std::string description_problem(std::span<const std::uint8_t> description) {
    const std::string where = "type";
    try {
        MessageCheck(description, where).whole();
    } catch (const Error& e) {
        const std::string message = e.what();
        const std::string prefix = where + ": type description: ";
        return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
    }
    return {};
}

std::vector<std::uint8_t> encode_type(hid_t type, const std::string& where) {
    std::size_t size = 0;
    check_status(H5Tencode(type, nullptr, &size), ErrorKind::bad_input, where,
                 "cannot describe its datatype");
    std::vector<std::uint8_t> out(size);
    check_status(H5Tencode(type, out.data(), &size), ErrorKind::bad_input, where,
                 "cannot describe its datatype");
    out.resize(size);
    return out;
}

Hid decode_type(std::span<const std::uint8_t> description, const std::string& where) {
    MessageCheck(description, where).whole();
    // Zeros after the checked bytes: a reader that strays reads them, never other memory.
    std::vector<std::uint8_t> copy(description.begin(), description.end());
    copy.resize(copy.size() + 64, 0);
    return checked(H5Tdecode(copy.data()), ErrorKind::damaged_stream, where,
                   "type description: libhdf5 cannot decode it");
}

}  // namespace gradcodec::hdf5
