#pragma once
// The bytes of a raw input file, which must hold exactly the bytes its shape needs, read whole
// (RawInput) or a piece at a time into one reused buffer (RawPieces).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "io/buffer_pool.hpp"
#include "io/signal_cleanup.hpp"
#include "support/cli_support.hpp"

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
    std::optional<MappedInputName> mapped_name_;  // for the SIGBUS handler
    void* mapping_ = nullptr;
    std::size_t mapped_size_ = 0;
    PooledBuffer buffer_;
    std::span<const std::byte> view_;
};

// The same bytes in order, a piece at a time, for a codec that encodes piece by piece: the
// tensor is never held whole. A regular file is mapped one piece at a time, so the codec
// reads the page cache itself instead of a copy of it; a pipe, or a file that cannot be
// mapped, is read into one buffer from `buffers`, reused for every piece. A regular file's
// size is checked when it is opened; a pipe's when it ends. Errors as RawInput's.
class RawPieces {
  public:
    RawPieces(const std::string& path, std::uint64_t bytes, const std::string& what,
              std::size_t piece_bytes, BufferPool& buffers);
    ~RawPieces();
    RawPieces(RawPieces&& other) noexcept;
    RawPieces(const RawPieces&) = delete;
    RawPieces& operator=(const RawPieces&) = delete;
    RawPieces& operator=(RawPieces&&) = delete;

    // The next piece: piece_bytes, or what is left before the end. It stays valid until the
    // next call.
    std::span<const std::byte> next();
    bool done() const { return done_ == bytes_; }
    // Whether rewind() can start the bytes again: a regular file's can, a pipe's cannot.
    bool rereadable() const { return regular_; }
    // Reads from the first byte again; Error(usage) on a pipe.
    void rewind();

  private:
    bool mapped() const { return mapped_name_ && mapped_name_->named(); }
    std::span<const std::byte> map_next(std::size_t size);
    std::span<const std::byte> read_next(std::size_t size);
    void unmap();

    std::string path_;
    std::string what_;
    std::uint64_t bytes_;
    std::uint64_t done_ = 0;
    std::size_t piece_bytes_;
    BufferPool& buffers_;
    PooledBuffer buffer_;  // taken on the first read, for input that is not mapped
    FilePtr in_;
    bool regular_ = false;
    // Engaged and named while the file is read by mapping its pieces (mapped()).
    std::optional<MappedInputName> mapped_name_;
    void* mapping_ = nullptr;  // the piece last handed out, where the input is mapped
    std::size_t mapped_size_ = 0;
};

}  // namespace gradcodec::cli
