#include "atomic_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "gradcodec/error.hpp"

namespace gradcodec::cli {
namespace {

// The signal handler may only touch async-signal-safe state: one fixed buffer.
char g_pending_temp[4096];

void cleanup_and_die(int sig) {
    if (g_pending_temp[0] != '\0') unlink(g_pending_temp);
    signal(sig, SIG_DFL);
    raise(sig);
}

[[noreturn]] void io_error(const std::string& path, const std::string& what) {
    fail(ErrorKind::io, path + ": " + what + ": " + std::strerror(errno));
}

}  // namespace

void install_signal_cleanup() {
    // SIGPIPE too: `decode -o - | head` must not leave its scratch HDF5 file in TMPDIR.
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) signal(sig, cleanup_and_die);
    signal(SIGXFSZ, SIG_IGN);
}

void check_output_path(const std::string& input, const std::string& output, bool force) {
    if (output == "-") return;
    struct stat out_st {};
    if (stat(output.c_str(), &out_st) != 0) {
        if (output == input) fail(ErrorKind::usage, output + ": OUTPUT is the same file as INPUT");
        return;
    }
    struct stat in_st {};
    if (output == input || (input != "-" && stat(input.c_str(), &in_st) == 0 &&
                            in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino)) {
        fail(ErrorKind::usage, output + ": OUTPUT is the same file as INPUT; refusing to overwrite it");
    }
    if (S_ISDIR(out_st.st_mode)) fail(ErrorKind::usage, output + ": OUTPUT is a directory");
    if (!force) fail(ErrorKind::usage, output + ": already exists (use --force to replace it)");
}

AtomicOutput::AtomicOutput(std::string path) : path_(std::move(path)) {
    temp_ = path_ + ".tmp-gradcodec-" + std::to_string(getpid());
    if (temp_.size() >= sizeof(g_pending_temp)) fail(ErrorKind::usage, path_ + ": path too long");
    // Registered before it exists, so a signal between open() and registration cannot leave it.
    std::memcpy(g_pending_temp, temp_.c_str(), temp_.size() + 1);
    const int fd = open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        g_pending_temp[0] = '\0';
        io_error(temp_, "cannot create");
    }
    ::close(fd);
}

AtomicOutput::~AtomicOutput() {
    if (file_) std::fclose(file_);
    if (!committed_) {
        unlink(temp_.c_str());
        g_pending_temp[0] = '\0';
    }
}

std::FILE* AtomicOutput::file() {
    if (!file_) {
        file_ = std::fopen(temp_.c_str(), "wb");
        if (!file_) io_error(temp_, "cannot open");
    }
    return file_;
}

void AtomicOutput::close_file() {
    if (!file_) return;
    std::FILE* f = file_;
    file_ = nullptr;
    const bool failed = std::fflush(f) != 0 || fsync(fileno(f)) != 0;
    if (std::fclose(f) != 0 || failed) io_error(path_, "write failed");
}

void AtomicOutput::commit() {
    close_file();
    if (std::rename(temp_.c_str(), path_.c_str()) != 0) io_error(path_, "cannot rename the output into place");
    committed_ = true;
    g_pending_temp[0] = '\0';
}

}  // namespace gradcodec::cli
