#pragma once
// Reading a gradient dump object by object.
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "gradcodec/stream.hpp"
#include "gradcodec_hdf5/byte_budget.hpp"
#include "gradcodec_hdf5/hdf5_handle.hpp"
#include "gradcodec_hdf5/typed_values.hpp"

namespace gradcodec::hdf5 {

// A dataset found by the walk; read() loads its values (little-endian, dtype order).
struct DumpDataset {
    std::string path;
    DType dtype;
    std::vector<std::uint64_t> shape;
    std::vector<Attribute> attributes;
    hid_t id;
    std::vector<std::byte> read(const std::string& file) const;
    // The values' size, and a read into a caller's buffer of exactly that size (reused
    // across tensors, so a dump of many tensors does not fault fresh memory for each).
    std::uint64_t byte_count() const;
    void read_into(const std::string& file, std::span<std::byte> out) const;
};

// A dataset of any other type gradcodec carries (strings, compound, enum, array, opaque,
// variable-length, numbers of unusual layout): its values travel as a typed record.
struct TypedDataset {
    std::string path;
    std::vector<std::uint64_t> shape;
    std::vector<Attribute> attributes;
    hid_t id;
    Hid type;  // the memory type H5Dread fills
    ElementLayout layout;
    // The record: H5Tencode's description of the type and the serialised elements, which
    // may take at most `cap` bytes (the per-tensor cap).
    TypedRecord read(const std::string& file, std::uint64_t cap) const;
};

struct DumpVisitor {
    std::function<void(const GroupRecord&)> group;
    std::function<void(const DumpDataset&)> dataset;
    std::function<void(const LinkRecord&)> link;
    // Null: the command does not carry typed datasets (fit, sweep: they are not gradients),
    // and the walk passes them by without a word, reference datasets too.
    std::function<void(const TypedDataset&)> typed = nullptr;
    // Called just before `dataset` visits the walk's last object, where that is a dataset:
    // a command working on many threads may give it all of them (null: nothing to do).
    std::function<void()> last_dataset_next = nullptr;
};

// Opens an HDF5 file for reading; "-" reads standard input into memory first.
// Errors name the file: not HDF5 or damaged (bad_input), unreadable (io).
// `offer_raw`: the message suggests --raw, for a command that has it.
Hid open_dump(const std::string& file, bool offer_raw = true);

// The datasets below `root`, each once, for a progress line's total; 0 when they cannot be
// counted (the walk then reports what is wrong).
std::size_t count_datasets(hid_t root);
bool looks_like_hdf5(const std::string& file);

// Groups nested deeper are refused: real dumps hold a handful of levels.
inline constexpr std::size_t kMaxGroupDepth = 512;

// What reading a dump may cost and reach.
struct DumpLimits {
    ByteBudget budget = ByteBudget();  // bytes per dataset (and in total) read into memory
    bool allow_external = false;    // external storage and virtual datasets, below INPUT's folder
    bool skip_unsupported = false;  // an object gradcodec cannot carry is a warning, not an error
    void check_tensor(const std::string& where, std::uint64_t elements,
                      std::size_t element_size) const {
        budget.check_tensor(where, elements, element_size);
    }
};

// Visits groups before their members, members in name order, iteratively (deep trees up to
// kMaxGroupDepth). Unsupported objects (named datatypes, user-defined links, reference
// datasets, external or virtual storage unless allowed) are errors, or with skip_unsupported
// warnings.
void walk_dump(const std::string& file, hid_t root, const DumpVisitor& visitor,
               const DumpLimits& limits = DumpLimits());

// Reads one dataset by path (for `inspect --against`).
std::vector<std::byte> read_dataset_at(const std::string& file, hid_t root, const std::string& path,
                                       DType& dtype, std::vector<std::uint64_t>& shape,
                                       const DumpLimits& limits = DumpLimits());

}  // namespace gradcodec::hdf5
