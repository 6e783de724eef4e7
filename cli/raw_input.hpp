#pragma once
// The bytes of a raw input file, which must hold exactly the bytes its shape needs. A regular
// file is mapped read-only (no copy, and its pages come from the page cache instead of fresh
// memory to fault in); standard input or a pipe is read into memory.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gradcodec::cli {

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
    std::vector<std::byte> buffer_;
    std::span<const std::byte> view_;
};

}  // namespace gradcodec::cli
