#include "gradcodec/atomic_file.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace gradcodec {
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

// The mode a new file gets from open(..., 0666): what the process's umask allows. Read from
// /proc where it is shown, since setting the umask to read it back would briefly change it
// for every thread of the process.
mode_t new_file_mode() {
    if (std::FILE* status = std::fopen("/proc/self/status", "re")) {
        char line[256];
        unsigned mask = 0;
        bool found = false;
        while (!found && std::fgets(line, sizeof line, status)) {
            found = std::sscanf(line, "Umask: %o", &mask) == 1;
        }
        std::fclose(status);
        if (found) return 0666 & ~static_cast<mode_t>(mask);
    }
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

[[noreturn]] void not_regular(const std::string& path, const struct stat& st) {
    if (S_ISDIR(st.st_mode)) fail(ErrorKind::usage, path + ": is a directory");
    fail(ErrorKind::usage, path + ": is not a regular file" +
                               (S_ISLNK(st.st_mode) ? std::string(" (a symbolic link)") : "") +
                               "; it is never replaced");
}

}  // namespace

AtomicFile::AtomicFile(std::string path, bool overwrite, TempNameHooks hooks)
    : path_(std::move(path)), overwrite_(overwrite), hooks_(hooks) {
    directory_ = directory_of(path_);
    dir_fd_ = open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd_ < 0) io_error(path_, "cannot open the directory " + directory_);
    struct stat st {};
    if (fstatat(dir_fd_, base_of(path_).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (!S_ISREG(st.st_mode)) {
            close(dir_fd_);
            not_regular(path_, st);
        }
        if (!overwrite_) {
            close(dir_fd_);
            throw FileExistsError(path_);
        }
    }
    try {
        create_in();
    } catch (...) {
        close(dir_fd_);
        throw;
    }
}

AtomicFile::AtomicFile(Scratch, std::string directory, TempNameHooks hooks) : hooks_(hooks) {
    directory_ = std::move(directory);
    dir_fd_ = open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd_ < 0) io_error(directory_, "cannot open the directory " + directory_);
    try {
        create_in();
    } catch (...) {
        close(dir_fd_);
        throw;
    }
}

bool AtomicFile::track(const std::string& full) {
    return !hooks_.track || hooks_.track(full.c_str());
}

void AtomicFile::untrack() {
    if (hooks_.untrack) hooks_.untrack();
}

void AtomicFile::create_in() {
    const std::string& name = path_.empty() ? directory_ : path_;
    fd_ = openat(dir_fd_, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd_ >= 0) {
        open_path_ = "/proc/self/fd/" + std::to_string(fd_);
        if (access(open_path_.c_str(), F_OK) == 0) return;
        close(fd_);  // no /proc: a library taking names could not open it, nor could it be linked
        fd_ = -1;
    } else if (!lacks_tmpfile(errno)) {
        io_error(name, "cannot create a file in " + directory_);
    }
    for (int attempt = 0; fd_ < 0; ++attempt) {
        temp_name_ = random_temp_name();
        const std::string full = directory_ + "/" + temp_name_;
        // Tracked before it exists, so a signal between open() and tracking cannot leave it.
        if (!track(full)) {
            temp_name_.clear();
            fail(ErrorKind::usage, name + ": the directory path is too long");
        }
        fd_ = openat(dir_fd_, temp_name_.c_str(),
                     O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd_ < 0 && (errno != EEXIST || attempt > 100)) {
            const int saved = errno;
            untrack();
            temp_name_.clear();
            errno = saved;
            io_error(name, "cannot create a file in " + directory_);
        }
        open_path_ = full;
    }
}

AtomicFile::~AtomicFile() {
    abort();
}

void AtomicFile::abort() noexcept {
    if (file_) std::fclose(file_);
    file_ = nullptr;
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    if (!committed_ && !temp_name_.empty()) {
        unlinkat(dir_fd_, temp_name_.c_str(), 0);
        temp_name_.clear();
        untrack();
    }
    if (dir_fd_ >= 0) close(dir_fd_);
    dir_fd_ = -1;
}

std::FILE* AtomicFile::file() {
    const std::string& name = path_.empty() ? open_path_ : path_;
    if (fd_ < 0) fail(ErrorKind::usage, name + ": the file was closed");
    if (!file_) {
        const int copy = dup(fd_);
        file_ = copy < 0 ? nullptr : fdopen(copy, "wb");
        if (!file_) {
            if (copy >= 0) close(copy);
            io_error(name, "cannot open");
        }
    }
    return file_;
}

void AtomicFile::write(std::span<const std::uint8_t> bytes) {
    std::FILE* f = file();
    if (bytes.empty()) return;
    if (std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size())
        io_error(path_.empty() ? open_path_ : path_, "write failed");
}

void AtomicFile::close_file() {
    if (!file_) return;
    std::FILE* f = file_;
    file_ = nullptr;
    const bool failed = std::fflush(f) != 0;
    const int saved = errno;
    if (std::fclose(f) != 0 || failed) {
        if (failed) errno = saved;
        io_error(path_.empty() ? open_path_ : path_, "write failed");
    }
}

void AtomicFile::copy_to(std::FILE* out, const std::string& name) const {
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

void AtomicFile::commit() {
    if (path_.empty()) fail(ErrorKind::usage, directory_ + ": a scratch file is never published");
    if (committed_) return;
    if (fd_ < 0) fail(ErrorKind::usage, path_ + ": the file was abandoned");
    close_file();
    const std::string base = base_of(path_);
    struct stat old {};
    const bool exists = fstatat(dir_fd_, base.c_str(), &old, AT_SYMLINK_NOFOLLOW) == 0;
    if (exists && overwrite_ && !S_ISREG(old.st_mode)) not_regular(path_, old);
    const bool replacing = exists && overwrite_;
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

void AtomicFile::publish_unnamed(const std::string& base) {
    if (!overwrite_) {
        if (linkat(AT_FDCWD, open_path_.c_str(), dir_fd_, base.c_str(), AT_SYMLINK_FOLLOW) == 0)
            return;
        if (errno == EEXIST) throw FileExistsError(path_);
        io_error(path_, "cannot create");
    }
    // rename() is the only atomic replace, and it needs a name to move: a fresh one, briefly.
    for (int attempt = 0; temp_name_.empty(); ++attempt) {
        std::string name = random_temp_name();
        const std::string full = directory_ + "/" + name;
        if (!track(full)) fail(ErrorKind::usage, path_ + ": the directory path is too long");
        if (linkat(AT_FDCWD, open_path_.c_str(), dir_fd_, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
            temp_name_ = std::move(name);
        } else if (errno != EEXIST || attempt > 100) {
            const int saved = errno;
            untrack();
            errno = saved;
            io_error(path_, "cannot create");
        }
    }
    publish_named(base);
}

void AtomicFile::publish_named(const std::string& base) {
    const char* temp = temp_name_.c_str();
    if (overwrite_) {
        if (renameat(dir_fd_, temp, dir_fd_, base.c_str()) != 0)
            io_error(path_, "cannot rename the output into place");
    } else if (renameat2(dir_fd_, temp, dir_fd_, base.c_str(), RENAME_NOREPLACE) != 0) {
        if (errno == EEXIST) throw FileExistsError(path_);
        if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
            io_error(path_, "cannot rename the output into place");
        // No RENAME_NOREPLACE here: link() refuses an existing name just the same.
        if (linkat(dir_fd_, temp, dir_fd_, base.c_str(), 0) != 0) {
            if (errno == EEXIST) throw FileExistsError(path_);
            io_error(path_, "cannot create");
        }
        unlinkat(dir_fd_, temp, 0);
    }
    temp_name_.clear();
    untrack();
}

}  // namespace gradcodec
