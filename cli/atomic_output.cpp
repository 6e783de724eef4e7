#include "atomic_output.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "gradcodec/error.hpp"
#include "signal_cleanup.hpp"

namespace gradcodec::cli {
namespace {

[[noreturn]] void io_error(const std::string& path, const std::string& what) {
    fail(ErrorKind::io, path + ": " + what + ": " + std::strerror(errno));
}

std::string directory_of(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The mode a new file gets from open(..., 0666): what the user's umask allows.
mode_t new_file_mode() {
    const mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

std::string random_temp_name() {
    unsigned char bytes[8] = {};
    if (getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
        for (auto& b : bytes) b = static_cast<unsigned char>(std::rand());
    }
    std::string name = ".gradcodec-";
    for (unsigned char b : bytes) {
        name += "0123456789abcdef"[b >> 4];
        name += "0123456789abcdef"[b & 15];
    }
    return name;
}

bool lacks_tmpfile(int error) {
    return error == EOPNOTSUPP || error == EISDIR || error == EINVAL;
}

}  // namespace

AtomicOutput::AtomicOutput(std::string path, bool replace)
    : path_(std::move(path)), replace_(replace) {
    create_in(directory_of(path_));
}

AtomicOutput::AtomicOutput(Scratch) {
    const char* tmpdir = std::getenv("TMPDIR");
    create_in(tmpdir && *tmpdir ? tmpdir : "/tmp");
}

void AtomicOutput::create_in(const std::string& directory) {
    directory_ = directory;
    const std::string& name = path_.empty() ? directory_ : path_;
    dir_fd_ = open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd_ < 0) io_error(name, "cannot open the directory " + directory_);
    fd_ = openat(dir_fd_, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd_ >= 0) {
        open_path_ = "/proc/self/fd/" + std::to_string(fd_);
        if (access(open_path_.c_str(), F_OK) == 0) return;
        close(fd_);  // no /proc: HDF5 could not open it, nor could it be linked in
        fd_ = -1;
    } else if (!lacks_tmpfile(errno)) {
        io_error(name, "cannot create a file in " + directory_);
    }
    for (int attempt = 0; fd_ < 0; ++attempt) {
        temp_name_ = random_temp_name();
        const std::string full = directory_ + "/" + temp_name_;
        // Registered before it exists, so a signal between open() and registration cannot leave it.
        if (!set_pending_temp(full.c_str()))
            fail(ErrorKind::usage, name + ": the directory path is too long");
        fd_ = openat(dir_fd_, temp_name_.c_str(),
                     O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd_ < 0 && (errno != EEXIST || attempt > 100)) {
            clear_pending_temp();
            temp_name_.clear();
            io_error(name, "cannot create a file in " + directory_);
        }
        open_path_ = full;
    }
}

AtomicOutput::~AtomicOutput() {
    if (file_) std::fclose(file_);
    if (fd_ >= 0) close(fd_);
    if (!committed_ && !temp_name_.empty()) {
        unlinkat(dir_fd_, temp_name_.c_str(), 0);
        clear_pending_temp();
    }
    if (dir_fd_ >= 0) close(dir_fd_);
}

std::FILE* AtomicOutput::file() {
    if (!file_) {
        const int copy = dup(fd_);
        file_ = copy < 0 ? nullptr : fdopen(copy, "wb");
        if (!file_) {
            if (copy >= 0) close(copy);
            io_error(path_, "cannot open");
        }
    }
    return file_;
}

void AtomicOutput::close_file() {
    if (!file_) return;
    std::FILE* f = file_;
    file_ = nullptr;
    const bool failed = std::fflush(f) != 0;
    const int saved = errno;
    if (std::fclose(f) != 0 || failed) {
        if (failed) errno = saved;
        io_error(path_, "write failed");
    }
}

void AtomicOutput::copy_to(std::FILE* out, const std::string& name) const {
    char buffer[1 << 16];
    off_t offset = 0;
    while (true) {
        const ssize_t n = pread(fd_, buffer, sizeof buffer, offset);
        if (n < 0) io_error(open_path_, "read failed");
        if (n == 0) break;
        if (std::fwrite(buffer, 1, static_cast<std::size_t>(n), out) !=
            static_cast<std::size_t>(n)) {
            io_error(name, "write failed");
        }
        offset += n;
    }
}

void AtomicOutput::commit() {
    close_file();
    const std::string base = base_of(path_);
    struct stat old {};
    const bool replacing = replace_ &&
                           fstatat(dir_fd_, base.c_str(), &old, AT_SYMLINK_NOFOLLOW) == 0 &&
                           S_ISREG(old.st_mode);
    if (fchmod(fd_, replacing ? old.st_mode & 07777 : new_file_mode()) != 0)
        io_error(path_, "cannot set the mode");
    if (fsync(fd_) != 0) io_error(path_, "write failed");
    if (temp_name_.empty()) {
        publish_unnamed(base);
    } else {
        publish_named(base);
    }
    committed_ = true;
    if (fsync(dir_fd_) != 0 && errno != EINVAL) io_error(directory_, "cannot sync the directory");
}

[[noreturn]] static void lost_race(const std::string& path) {
    fail(ErrorKind::usage,
         path + ": already exists: it appeared while gradcodec ran (use --force to replace it)");
}

void AtomicOutput::publish_unnamed(const std::string& base) {
    if (!replace_) {
        if (linkat(AT_FDCWD, open_path_.c_str(), dir_fd_, base.c_str(), AT_SYMLINK_FOLLOW) == 0)
            return;
        if (errno == EEXIST) lost_race(path_);
        io_error(path_, "cannot create");
    }
    // rename() is the only atomic replace, and it needs a name to move: a fresh one, briefly.
    for (int attempt = 0; temp_name_.empty(); ++attempt) {
        std::string name = random_temp_name();
        const std::string full = directory_ + "/" + name;
        if (!set_pending_temp(full.c_str()))
            fail(ErrorKind::usage, path_ + ": the directory path is too long");
        if (linkat(AT_FDCWD, open_path_.c_str(), dir_fd_, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
            temp_name_ = std::move(name);
        } else if (errno != EEXIST || attempt > 100) {
            clear_pending_temp();
            io_error(path_, "cannot create");
        }
    }
    publish_named(base);
}

void AtomicOutput::publish_named(const std::string& base) {
    const char* temp = temp_name_.c_str();
    if (replace_) {
        if (renameat(dir_fd_, temp, dir_fd_, base.c_str()) != 0)
            io_error(path_, "cannot rename the output into place");
    } else if (renameat2(dir_fd_, temp, dir_fd_, base.c_str(), RENAME_NOREPLACE) != 0) {
        if (errno == EEXIST) lost_race(path_);
        if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
            io_error(path_, "cannot rename the output into place");
        // No RENAME_NOREPLACE here: link() refuses an existing name just the same.
        if (linkat(dir_fd_, temp, dir_fd_, base.c_str(), 0) != 0) {
            if (errno == EEXIST) lost_race(path_);
            io_error(path_, "cannot create");
        }
        unlinkat(dir_fd_, temp, 0);
    }
    temp_name_.clear();
    clear_pending_temp();
}

}  // namespace gradcodec::cli
