#include "raw_input.hpp"

#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli_support.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec::cli {
namespace {

[[noreturn]] void wrong_size(const std::string& path, const std::string& what, std::uint64_t bytes,
                             bool short_input, std::uint64_t got) {
    fail(ErrorKind::bad_input,
         path + ": " + what + " needs exactly " + std::to_string(bytes) + " bytes, the input " +
             (short_input ? "holds only " + std::to_string(got) : "holds more"));
}

}  // namespace

RawInput::RawInput(const std::string& path, std::uint64_t bytes, const std::string& what) {
    FilePtr in = open_input(path);
    struct stat info {};
    const bool regular =
        path != "-" && fstat(fileno(in.get()), &info) == 0 && S_ISREG(info.st_mode);
    if (regular) {
        const auto size = static_cast<std::uint64_t>(info.st_size);
        if (size != bytes) wrong_size(path, what, bytes, size < bytes, size);
        if (bytes == 0) return;
        // MAP_POPULATE maps every page now, in one call, instead of one fault per page later.
        void* p = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fileno(in.get()), 0);
        if (p != MAP_FAILED) {
            mapping_ = p;
            mapped_size_ = bytes;
            view_ = {static_cast<const std::byte*>(p), bytes};
            return;
        }
        // Some file systems cannot map: read the file instead.
    }
    buffer_.resize(bytes);
    const std::size_t got = std::fread(buffer_.data(), 1, buffer_.size(), in.get());
    if (std::ferror(in.get())) fail(ErrorKind::io, path + ": read failed: " + std::strerror(errno));
    if (got != bytes || std::fgetc(in.get()) != EOF)
        wrong_size(path, what, bytes, got != bytes, got);
    view_ = buffer_;
}

RawInput::~RawInput() {
    if (mapping_ != nullptr) munmap(mapping_, mapped_size_);
}

}  // namespace gradcodec::cli
