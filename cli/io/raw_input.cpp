#include "io/raw_input.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>

#include "gradcodec/error.hpp"
#include "io/signal_cleanup.hpp"

namespace gradcodec::cli {
namespace {

[[noreturn]] void wrong_size(const std::string& path, const std::string& what, std::uint64_t bytes,
                             bool short_input, std::uint64_t got) {
    fail(ErrorKind::bad_input,
         path + ": " + what + " needs exactly " + std::to_string(bytes) + " bytes, the input " +
             (short_input ? "holds only " + std::to_string(got) : "holds more"));
}

// The file's size when it is a regular file, which is then checked against `bytes` at once.
bool is_regular(std::FILE* in, const std::string& path, const std::string& what,
                std::uint64_t bytes) {
    struct stat info {};
    if (path == "-" || fstat(fileno(in), &info) != 0 || !S_ISREG(info.st_mode)) return false;
    const auto size = static_cast<std::uint64_t>(info.st_size);
    if (size != bytes) wrong_size(path, what, bytes, size < bytes, size);
    return true;
}

// Reads exactly out.size() bytes, or says how many there were.
void read_exactly(std::FILE* in, const std::string& path, const std::string& what,
                  std::uint64_t bytes, std::uint64_t before, std::span<std::byte> out) {
    const std::size_t got = std::fread(out.data(), 1, out.size(), in);
    if (std::ferror(in)) fail(ErrorKind::io, path + ": read failed: " + std::strerror(errno));
    if (got != out.size()) wrong_size(path, what, bytes, true, before + got);
}

void expect_end(std::FILE* in, const std::string& path, const std::string& what,
                std::uint64_t bytes) {
    if (std::fgetc(in) != EOF) wrong_size(path, what, bytes, false, bytes);
    if (std::ferror(in)) fail(ErrorKind::io, path + ": read failed: " + std::strerror(errno));
}

// Reading into fresh memory on 2 MiB pages costs a zero-fill and a copy, but then the codec's
// passes run on memory the CPU maps with few page-table entries. A file's pages mapped 4 KiB
// at a time made those passes several times slower than the copy costs (on this project's
// measuring machine, a VM, a first touch of each 4 KiB page costs about 2 us), so the file is
// mapped only where huge pages are off.
bool huge_pages_available() {
    std::ifstream setting("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    return std::getline(setting, line) && line.find("[never]") == std::string::npos;
}

}  // namespace

RawInput::RawInput(const std::string& path, std::uint64_t bytes, const std::string& what) {
    FilePtr in = open_input(path);
    if (is_regular(in.get(), path, what, bytes)) {
        if (bytes == 0) return;
        // As RawPieces and DirectInput: a file the SIGBUS handler cannot name (a path too
        // long) is read, never mapped, so that its shrinking is never reported as a crash.
        if ((bytes < kHugePageBytes || !huge_pages_available()) &&
            mapped_name_.emplace(path).named()) {
            // MAP_POPULATE maps every page now, in one call, instead of one fault per page.
            void* p =
                mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fileno(in.get()), 0);
            if (p != MAP_FAILED) {
                mapping_ = p;
                mapped_size_ = bytes;
                view_ = {static_cast<const std::byte*>(p), bytes};
                return;
            }
            // Some file systems cannot map: read the file instead.
        }
        mapped_name_.reset();
    }
    buffer_ = BufferPool().take(bytes);
    read_exactly(in.get(), path, what, bytes, 0, buffer_.bytes());
    expect_end(in.get(), path, what, bytes);
    view_ = buffer_.bytes();
}

RawInput::~RawInput() {
    if (mapping_ != nullptr) munmap(mapping_, mapped_size_);
}

RawPieces::RawPieces(const std::string& path, std::uint64_t bytes, const std::string& what,
                     std::size_t piece_bytes, BufferPool& buffers)
    : path_(path),
      what_(what),
      bytes_(bytes),
      piece_bytes_(piece_bytes),
      buffers_(buffers),
      in_(open_input(path)) {
    if (piece_bytes == 0) fail(ErrorKind::usage, path + ": pieces of no bytes");
    regular_ = is_regular(in_.get(), path, what, bytes);
    // Pieces start at multiples of piece_bytes, which a mapping's offset must be of the page.
    if (regular_ && piece_bytes % static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) == 0)
        mapped_name_.emplace(path);
    // next() checks a pipe's end after its last piece; an empty tensor has none.
    if (!regular_ && bytes == 0) expect_end(in_.get(), path, what, bytes);
}

RawPieces::~RawPieces() {
    unmap();
}

RawPieces::RawPieces(RawPieces&& other) noexcept
    : path_(std::move(other.path_)),
      what_(std::move(other.what_)),
      bytes_(other.bytes_),
      done_(other.done_),
      piece_bytes_(other.piece_bytes_),
      buffers_(other.buffers_),
      buffer_(std::move(other.buffer_)),
      in_(std::move(other.in_)),
      regular_(other.regular_),
      mapped_name_(std::move(other.mapped_name_)),
      mapping_(std::exchange(other.mapping_, nullptr)),
      mapped_size_(other.mapped_size_) {}

void RawPieces::unmap() {
    if (mapping_ != nullptr) munmap(mapping_, mapped_size_);
    mapping_ = nullptr;
}

void RawPieces::rewind() {
    if (!regular_) fail(ErrorKind::usage, path_ + ": a pipe cannot be read twice");
    if (std::fseek(in_.get(), 0, SEEK_SET) != 0)
        fail(ErrorKind::io, path_ + ": cannot seek: " + std::strerror(errno));
    done_ = 0;
}

std::span<const std::byte> RawPieces::next() {
    const auto size =
        static_cast<std::size_t>(std::min<std::uint64_t>(piece_bytes_, bytes_ - done_));
    const std::span<const std::byte> piece = mapped() ? map_next(size) : read_next(size);
    done_ += size;
    if (!mapped() && size != 0 && done()) expect_end(in_.get(), path_, what_, bytes_);
    return piece;
}

// Mapping a piece costs its page-table entries, where reading it costs a copy of every byte:
// on the measuring machine (docs/results/benchmark-history.md, "Checksums, decode and mapped
// input") a raw top-k encode took 16-21% less CPU in most rounds, cast 0-13% less, and rangeq,
// which reads every value twice, from 16% less to 7% more. One piece at a time keeps the pages
// the process maps as few as a buffer's.
std::span<const std::byte> RawPieces::map_next(std::size_t size) {
    unmap();
    if (size == 0) return {};
    void* p =
        mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fileno(in_.get()), static_cast<off_t>(done_));
    if (p == MAP_FAILED) {  // some file systems cannot map: read from here on
        mapped_name_.reset();
        if (fseeko(in_.get(), static_cast<off_t>(done_), SEEK_SET) != 0)
            fail(ErrorKind::io, path_ + ": cannot seek: " + std::strerror(errno));
        return read_next(size);
    }
    mapping_ = p;
    mapped_size_ = size;
    return {static_cast<const std::byte*>(p), size};
}

std::span<const std::byte> RawPieces::read_next(std::size_t size) {
    if (buffer_.bytes().size() < size) buffer_ = buffers_.take(piece_bytes_);
    const std::span<std::byte> piece = buffer_.bytes().first(size);
    read_exactly(in_.get(), path_, what_, bytes_, done_, piece);
    return piece;
}

}  // namespace gradcodec::cli
