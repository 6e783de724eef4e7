#pragma once
// Reading an HDF5 dump's values on many threads. The values of a typical gradient dataset lie
// in the file as one contiguous run of little-endian bytes, exactly what H5Dread would return.
// Those are read by the thread that encodes them, instead of by H5Dread on the one thread that
// may call HDF5 (the library is not thread-safe), which made reading a serial bottleneck at
// every thread count. Every other dataset is read with H5Dread as before: chunked, filtered,
// compact or external storage, another byte order or a type that needs converting, storage
// never written (fill values), and a dump read from standard input.
//
// The file is mapped once, whole, and a tensor's values are read where they lie in the page
// cache, without a copy; once encoded, its pages are dropped from the mapping again, so the
// process maps little more of the file than the tensors in flight. One mapping for the whole
// encode: mapping and unmapping each tensor instead was slower on two threads
// (docs/results/benchmark-history.md, "Dump values read from one mapping"). A tensor that one
// thread casts piece by piece is still read with pread into a small buffer (ExtentPieces),
// which the mapping did not beat. Where the file
// cannot be mapped, values are read with pread.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "gradcodec_hdf5/hdf5_dump.hpp"
#include "gradcodec_hdf5/hdf5_handle.hpp"
#include "io/buffer_pool.hpp"
#include "io/signal_cleanup.hpp"

namespace gradcodec::cli {

using namespace gradcodec::hdf5;  // HDF5 dumps: gradcodec_hdf5_io (hdf5/)

struct FileExtent {
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
};

class DirectInput {
  public:
    // `file`: the open dump; `name`: INPUT as the user gave it.
    DirectInput(hid_t file, const std::string& name);
    ~DirectInput();
    DirectInput(const DirectInput&) = delete;
    DirectInput& operator=(const DirectInput&) = delete;

    // Where the dataset's values lie in the file, when they may be mapped; nullopt when they
    // must go through H5Dread. Error(bad_input) naming file and dataset when the values would
    // lie past the end of the file (a truncated or damaged file). Calls HDF5: reading thread only.
    std::optional<FileExtent> extent_of(const DumpDataset& dataset) const;

    // Asks the kernel to start reading an extent into the page cache, so that a part of the
    // file that is not cached (a dump just copied in, or pages the kernel dropped) is read
    // while earlier tensors are encoded, not by an encoding thread that then waits for the
    // disk. Only advice, and errors are ignored. An extent whose last byte is already in the
    // page cache is taken to be cached whole and is not advised: the advice looks up every
    // 4 KiB page, which on a cached dump cost the one reading thread 3% of an encode.
    void prefetch(FileExtent extent) const;

    // Reads an extent returned above into `out` (extent.size bytes); any thread. Error(io)
    // naming `where` when the read fails, Error(bad_input) when the file has shrunk meanwhile.
    void read(FileExtent extent, std::span<std::byte> out, const std::string& where) const;

    // An extent's values, any thread: where they lie in the mapped file, or read into `into`
    // (a buffer from `buffers`) where the file is not mapped. Valid until release(extent).
    std::span<const std::byte> values(FileExtent extent, PooledBuffer& into, BufferPool& buffers,
                                      const std::string& where) const;
    // Drops the extent's pages from the mapping (those it does not share with another
    // extent); the page cache keeps them. Nothing to do where the file is not mapped.
    void release(FileExtent extent) const;

  private:
    void map_file();

    std::string name_;
    int fd_ = -1;            // our own descriptor of the file HDF5 opened; -1: no direct reads
    std::uint64_t end_ = 0;  // bytes of the file that hold data: its size, and HDF5's end
    std::optional<MappedInputName> mapped_name_;  // for the SIGBUS handler, while mapped
    std::byte* mapping_ = nullptr;  // the file's first end_ bytes, where it could be mapped
};

// An extent's bytes in order, each piece read into the caller's `buffer` by the thread that
// encodes it (the interface of RawPieces, for a codec that encodes piece by piece). Pieces
// small enough to stay in the core's cache save writing the whole tensor out to memory and
// reading it back.
class ExtentPieces {
  public:
    // `input` and `buffer` must outlive the pieces; `where` names the dataset in errors.
    ExtentPieces(const DirectInput& input, FileExtent extent, std::string where,
                 std::span<std::byte> buffer);
    // The next piece: the buffer's size, or what is left before the end.
    std::span<const std::byte> next();
    bool done() const { return done_ == extent_.size; }
    bool rereadable() const { return true; }
    void rewind() { done_ = 0; }

  private:
    const DirectInput& input_;
    FileExtent extent_;
    std::string where_;
    std::span<std::byte> buffer_;
    std::uint64_t done_ = 0;
};

}  // namespace gradcodec::cli
