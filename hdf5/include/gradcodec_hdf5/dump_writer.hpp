#pragma once
// Rebuilding an HDF5 dump from stream records.
//
// The stream is untrusted: it may name an object twice, put one under a dataset or a link,
// use "." as a name, or hold a link to another file followed by an object "under" it.
// Every path is resolved against what this writer created itself, component by component from
// the root, never by handing HDF5 a full path: a link the stream created is never traversed,
// so no other file is ever opened, and a deep path costs time linear in its length.
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "gradcodec/stream.hpp"
#include "gradcodec_hdf5/hdf5_handle.hpp"

namespace gradcodec::hdf5 {

class DumpWriter {
  public:
    // Creates (truncates) the file at `path`; errors name it `name` (OUTPUT, not the path it is
    // built under). A /proc/self/fd/N path goes through HDF5's stdio driver: the default one
    // resolves symbolic links and cannot follow that one to an unnamed file.
    // `fapl` replaces the default file access (repack asks for the 1.10 format).
    DumpWriter(const std::string& path, std::string name, hid_t fapl = H5P_DEFAULT);
    void write(const GroupRecord& group);
    void write(const LinkRecord& link);
    // `dcpl` sets the dataset's layout and filters (repack's chunks); the default is contiguous.
    void write(const TensorRecord& tensor, std::span<const std::byte> values,
               hid_t dcpl = H5P_DEFAULT);
    // A chunked dataset whose chunks are stored as given, already filtered (repack encodes
    // them on many threads; HDF5's filter pipeline would run one at a time).
    struct ChunkBytes {
        std::span<const std::uint64_t> offset;  // the chunk's first element, per dimension
        std::span<const std::uint8_t> bytes;
    };
    void write_chunks(const TensorRecord& tensor, hid_t dcpl, std::span<const ChunkBytes> chunks);
    // A dataset written a hyperslab at a time (decode's large sparse tensors): chunked in
    // `chunk`, with fill value 0 and chunks stored only when written, so a chunk nobody writes
    // takes no space and reads back as zeros. `fill` gets a function that writes `values` (in
    // the tensor's dtype) at `start`, `count` elements per dimension.
    using SlabWrite = std::function<void(std::span<const std::uint64_t> start,
                                         std::span<const std::uint64_t> count,
                                         std::span<const std::byte> values)>;
    void write_slabs(const TensorRecord& tensor, std::span<const std::uint64_t> chunk,
                     const std::function<void(const SlabWrite&)>& fill);
    // A typed dataset: its type description is checked before libhdf5 decodes it, and its
    // elements may take at most `cap` bytes in memory (Error(limit) beyond).
    void write(const TypedRecord& typed, std::uint64_t cap);
    void close();  // flushes; errors are io errors naming the file

  private:
    enum class Kind : std::uint8_t { group, dataset, link };
    struct Node {
        Kind kind;
        std::map<std::string, std::uint32_t, std::less<>> children;
    };
    // The parent group of `path`'s last component, open, with missing groups created on the way.
    struct Place {
        Hid parent;
        std::string leaf;
        std::uint32_t parent_node = 0;
        const Node* existing = nullptr;  // what `path` already names, if anything
    };
    Place locate(const std::string& path, const std::string& where);
    Hid create_dataset(const TensorRecord& tensor, hid_t type, hid_t dcpl,
                       const std::string& where);
    void add(const Place& place, Kind kind);
    std::string path_;
    Hid file_;
    std::vector<Node> nodes_;  // nodes_[0] is the root group
};

}  // namespace gradcodec::hdf5
