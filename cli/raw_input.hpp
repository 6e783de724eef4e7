#pragma once
// The bytes of a raw input file, which must hold exactly the bytes its shape needs, read whole
// (RawInput) or a piece at a time into one reused buffer (RawPieces).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "buffer_pool.hpp"
#include "cli_support.hpp"

namespace gradcodec::cli {

// A regular file is read into memory on 2 MiB pages where the kernel has transparent huge
// pages, and mapped read-only otherwise; standard input or a pipe is read into memory.
class RawInput {
  public:
    // Error(io) when the file cannot be read, Error(bad_input) when its size is not `bytes`;
    // both name the file. `what` says what the bytes are for, in the size message.
    RawInput(const std::string& path, std::uint64_t bytes, const std::string& what);
    ~RawInput();
    RawInput(const RawInput&) = delete;
    RawInput& operator=(const RawInput&) = delete;

    std::span<const std::byte> bytes() const { return view_; }

  private:
    void* mapping_ = nullptr;
    std::size_t mapped_size_ = 0;
    PooledBuffer buffer_;
    std::span<const std::byte> view_;
};

// The same bytes in order, each piece read into the caller's `buffer`, for a codec that
// encodes piece by piece: the tensor is never held whole and every piece lands in memory
// that is already mapped. A regular file's size is checked when it is opened; a pipe's when
// it ends. Errors as RawInput's.
class RawPieces {
  public:
    RawPieces(const std::string& path, std::uint64_t bytes, const std::string& what,
              std::span<std::byte> buffer);
    // The next piece: the buffer's size, or what is left before the end.
    std::span<const std::byte> next();
    bool done() const { return done_ == bytes_; }
    // Whether rewind() can start the bytes again: a regular file's can, a pipe's cannot.
    bool rereadable() const { return regular_; }
    // Reads from the first byte again; Error(usage) on a pipe.
    void rewind();

  private:
    std::string path_;
    std::string what_;
    std::uint64_t bytes_;
    std::uint64_t done_ = 0;
    std::span<std::byte> buffer_;
    FilePtr in_;
    bool regular_ = false;
};

}  // namespace gradcodec::cli
