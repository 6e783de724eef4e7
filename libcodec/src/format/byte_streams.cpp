#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "gradcodec/error.hpp"
#include "gradcodec/stream.hpp"

namespace gradcodec {
namespace {

std::string io_message(const std::string& name, const char* what) {
    return (name.empty() ? std::string() : name + ": ") + what + ": ";
}

}  // namespace

void VectorSink::write(std::span<const std::uint8_t> b) {
    bytes.insert(bytes.end(), b.begin(), b.end());
}

std::size_t SpanSource::read(std::span<std::uint8_t> out) {
    const std::size_t n = std::min(out.size(), bytes_.size() - pos_);
    if (n != 0) std::memcpy(out.data(), bytes_.data() + pos_, n);  // data() may be null
    pos_ += n;
    return n;
}

void FileSink::write(std::span<const std::uint8_t> b) {
    if (b.empty()) return;
    if (std::fwrite(b.data(), 1, b.size(), file_) != b.size()) {
        fail(ErrorKind::io, io_message(name_, "write failed") + std::strerror(errno));
    }
}

FileSource::FileSource(std::FILE* file, std::string name) : file_(file), name_(std::move(name)) {
    struct stat st {};
    if (fstat(fileno(file), &st) == 0 && S_ISREG(st.st_mode)) {
        const long at = std::ftell(file);
        size_ = static_cast<std::uint64_t>(st.st_size);
        pos_ = at > 0 ? static_cast<std::uint64_t>(at) : 0;
    }
}

std::size_t FileSource::read(std::span<std::uint8_t> out) {
    std::size_t total = 0;
    while (total < out.size()) {
        const std::size_t n = std::fread(out.data() + total, 1, out.size() - total, file_);
        total += n;
        if (n == 0) {
            if (std::ferror(file_))
                fail(ErrorKind::io, io_message(name_, "read failed") + std::strerror(errno));
            break;
        }
    }
    pos_ += total;
    return total;
}

std::optional<std::uint64_t> FileSource::remaining() const {
    if (!size_) return std::nullopt;
    return *size_ > pos_ ? *size_ - pos_ : 0;
}

}  // namespace gradcodec
