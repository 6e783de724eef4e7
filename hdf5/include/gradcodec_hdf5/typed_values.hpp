#pragma once
// The elements of a typed dataset record (FORMAT.md 2.2, "Typed dataset record"): how an
// element of an HDF5 type sits in memory (as H5Dread and H5Dwrite exchange it) and how it is
// serialised into the record's data. Types without variable-length parts are their bytes as
// stored; strings and sequences of variable length become a u32 length and their contents.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gradcodec_hdf5/hdf5_handle.hpp"

namespace gradcodec::hdf5 {

struct ElementLayout {
    enum class Kind : std::uint8_t { fixed, vlen_string, sequence, compound, array };
    Kind kind = Kind::fixed;
    std::size_t size = 0;              // bytes of one element in memory
    std::size_t offset = 0;            // a compound member's place in its compound
    std::uint64_t count = 1;           // array: its elements
    std::uint64_t least_bytes = 0;     // the fewest bytes one element serialises to
    std::vector<ElementLayout> parts;  // compound: its members; array, sequence: the base
};

// The layout of a memory type (H5Dget_type's or H5Tdecode's), or nullopt with `why` set when
// gradcodec does not carry the type (references, time, nesting beyond kMaxTypeDepth).
std::optional<ElementLayout> layout_of(hid_t type, std::string& why);

// A short name for messages and inspect: "string", "vlen string", "compound", "enum", ...
std::string type_summary(hid_t type);

// The record data of `count` elements held in memory. Refused (Error(limit), naming `where`
// and --max-tensor-bytes) when it would pass `cap` bytes.
std::vector<std::uint8_t> serialise_elements(const ElementLayout& layout,
                                             std::span<const std::byte> memory, std::uint64_t count,
                                             std::uint64_t cap, const std::string& where);

// Elements rebuilt in memory from record data; variable-length parts point into `storage`.
struct RebuiltElements {
    std::vector<std::byte> memory;
    std::vector<std::unique_ptr<std::byte[]>> storage;
};

// Error(damaged_stream) naming `where` when `data` does not hold exactly `count` elements;
// Error(limit) when the memory they take passes `cap` bytes.
RebuiltElements rebuild_elements(const ElementLayout& layout, std::span<const std::uint8_t> data,
                                 std::uint64_t count, std::uint64_t cap, const std::string& where);

}  // namespace gradcodec::hdf5
