#pragma once
// Reading a gradient dump object by object, and rebuilding one from stream records.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "gradcodec/stream.hpp"
#include "hdf5_handle.hpp"

namespace gradcodec::cli {

// A dataset found by the walk; read() loads its values (little-endian, dtype order).
struct DumpDataset {
    std::string path;
    DType dtype;
    std::vector<std::uint64_t> shape;
    std::vector<Attribute> attributes;
    hid_t id;
    std::vector<std::byte> read(const std::string& file) const;
};

struct DumpVisitor {
    std::function<void(const GroupRecord&)> group;
    std::function<void(const DumpDataset&)> dataset;
    std::function<void(const LinkRecord&)> link;
};

// Opens an HDF5 file for reading; "-" reads standard input into memory first.
// Errors name the file: not HDF5 or damaged (bad_input), unreadable (io).
Hid open_dump(const std::string& file);
bool looks_like_hdf5(const std::string& file);

// Visits groups before their members, members in name order. Unsupported objects
// (named datatypes, user-defined links, unsupported dataset types) are errors, never skipped.
void walk_dump(const std::string& file, hid_t root, const DumpVisitor& visitor);

// Reads one dataset by path (for `inspect --against`).
std::vector<std::byte> read_dataset_at(const std::string& file, hid_t root, const std::string& path,
                                       DType& dtype, std::vector<std::uint64_t>& shape);

class DumpWriter {
public:
    // Creates (truncates) the file; `fapl` may ask for a newer file format (repack does).
    explicit DumpWriter(const std::string& path, hid_t fapl = H5P_DEFAULT);
    void write(const GroupRecord& group);
    void write(const LinkRecord& link);
    // `dcpl` sets the dataset's layout and filters (repack's chunks); the default is contiguous.
    void write(const TensorRecord& tensor, std::span<const std::byte> values, hid_t dcpl = H5P_DEFAULT);
    void close();  // flushes; errors are io errors naming the file

private:
    std::string path_;
    Hid file_;
};

}  // namespace gradcodec::cli
