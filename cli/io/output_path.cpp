#include "io/output_path.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gradcodec/error.hpp"

namespace gradcodec::cli {
namespace {

bool same_regular_file(const struct stat& a, const struct stat& b) {
    return S_ISREG(a.st_mode) && S_ISREG(b.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// INPUT's identity; standard input counts by what it is connected to.
bool input_identity(const std::string& input, struct stat& st) {
    return input == "-" ? fstat(0, &st) == 0 : stat(input.c_str(), &st) == 0;
}

[[noreturn]] void io_error(const std::string& path, const std::string& what) {
    fail(ErrorKind::io, path + ": " + what + ": " + std::strerror(errno));
}

}  // namespace

OutputMode check_output_path(const std::string& input, const std::string& output, bool force) {
    struct stat in_st {};
    const bool input_known = input_identity(input, in_st);
    const auto refuse_same = [&](const struct stat& out_st) {
        if ((output == input && output != "-") ||
            (input_known && same_regular_file(in_st, out_st))) {
            fail(ErrorKind::usage,
                 output + ": OUTPUT is the same file as INPUT; refusing to overwrite it");
        }
    };
    if (output == "-") {
        struct stat out_st {};
        if (fstat(1, &out_st) == 0) refuse_same(out_st);
        return OutputMode::in_place;
    }
    struct stat link_st {};
    if (lstat(output.c_str(), &link_st) != 0) {
        if (output == input) fail(ErrorKind::usage, output + ": OUTPUT is the same file as INPUT");
        return OutputMode::replace;  // creating the file reports a missing directory
    }
    struct stat st {};
    const bool resolves = stat(output.c_str(), &st) == 0;
    if (resolves) refuse_same(st);
    if (S_ISLNK(link_st.st_mode) && (!resolves || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
        fail(ErrorKind::usage,
             output + ": OUTPUT is a symbolic link" + (resolves ? "" : " to nothing") +
                 "; gradcodec neither writes through nor replaces links: name the file itself");
    }
    if (S_ISDIR(st.st_mode)) fail(ErrorKind::usage, output + ": OUTPUT is a directory");
    if (S_ISREG(st.st_mode)) {
        if (!force) fail(ErrorKind::usage, output + ": already exists (use --force to replace it)");
        return OutputMode::replace;
    }
    if (S_ISBLK(st.st_mode) && !force) {
        fail(ErrorKind::usage,
             output + ": OUTPUT is a block device (use --force to write onto it)");
    }
    return OutputMode::in_place;
}

FilePtr open_in_place(const std::string& output, const char* what) {
    int fd = 1;
    if (output != "-") {
        fd = open(output.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) io_error(output, "cannot open for writing");
    }
    if (isatty(fd)) {
        if (fd != 1) close(fd);
        fail(ErrorKind::usage, std::string("refusing to write ") + what +
                                   " to a terminal; redirect standard output or use -o FILE");
    }
    if (fd == 1) return FilePtr(stdout);
    std::FILE* f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        io_error(output, "cannot open for writing");
    }
    return FilePtr(f);
}

void finish_in_place(std::FILE* out, const std::string& output) {
    if (std::fflush(out) != 0) io_error(output, "write failed");
    // A device or a pipe has nothing to sync (EINVAL, EROFS); a regular file behind stdout does.
    if (fsync(fileno(out)) != 0 && errno != EINVAL && errno != EROFS)
        io_error(output, "write failed");
}

}  // namespace gradcodec::cli
