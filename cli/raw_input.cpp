#include "raw_input.hpp"

#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "gradcodec/error.hpp"

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
        if (bytes < kHugePageBytes || !huge_pages_available()) {
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
                     std::span<std::byte> buffer)
    : path_(path), what_(what), bytes_(bytes), buffer_(buffer), in_(open_input(path)) {
    if (buffer.empty() && bytes != 0) fail(ErrorKind::usage, path + ": no buffer to read into");
    regular_ = is_regular(in_.get(), path, what, bytes);
    // next() checks a pipe's end after its last piece; an empty tensor has none.
    if (!regular_ && bytes == 0) expect_end(in_.get(), path, what, bytes);
}

void RawPieces::rewind() {
    if (!regular_) fail(ErrorKind::usage, path_ + ": a pipe cannot be read twice");
    if (std::fseek(in_.get(), 0, SEEK_SET) != 0)
        fail(ErrorKind::io, path_ + ": cannot seek: " + std::strerror(errno));
    done_ = 0;
}

std::span<const std::byte> RawPieces::next() {
    const auto size =
        static_cast<std::size_t>(std::min<std::uint64_t>(buffer_.size(), bytes_ - done_));
    const std::span<std::byte> piece = buffer_.first(size);
    read_exactly(in_.get(), path_, what_, bytes_, done_, piece);
    done_ += size;
    if (size != 0 && done()) expect_end(in_.get(), path_, what_, bytes_);
    return piece;
}

}  // namespace gradcodec::cli
