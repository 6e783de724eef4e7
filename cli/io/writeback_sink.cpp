#include "io/writeback_sink.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gradcodec/error.hpp"

namespace gradcodec::cli {

WritebackSink::WritebackSink(std::FILE* file, const std::string& name, bool own_thread)
    : sink_(file, name), file_(file), name_(name), fd_(fileno(file)) {
    struct stat st {};
    regular_ = fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
    if (regular_ && own_thread)
        syncer_ = std::jthread([this](std::stop_token stop) { sync_stretches(stop); });
}

void WritebackSink::write(std::span<const std::uint8_t> bytes) {
    sink_.write(bytes);
    unwritten_ += bytes.size();
    if (regular_ && unwritten_ >= kStretchBytes) start_writeback();
}

void WritebackSink::start_writeback() {
    unwritten_ = 0;
    if (std::fflush(file_) != 0)
        fail(ErrorKind::io, name_ + ": write failed: " + std::strerror(errno));
    if (syncer_.joinable()) {
        {
            const std::lock_guard lock(mutex_);
            sync_wanted_ = true;
        }
        stretch_ready_.notify_one();
        return;
    }
    // The whole file: pages already on their way are skipped, dirty ones start. Only a hint;
    // where the file system has no use for it, the final fsync does all the work as before.
    if (sync_file_range(fd_, 0, 0, SYNC_FILE_RANGE_WRITE) != 0) regular_ = false;
}

void WritebackSink::sync_stretches(std::stop_token stop) {
    std::unique_lock lock(mutex_);
    while (stretch_ready_.wait(lock, stop, [this] { return sync_wanted_; })) {
        sync_wanted_ = false;
        lock.unlock();
        const int status = fdatasync(fd_);
        const int error = errno;
        lock.lock();
        if (status != 0 && sync_error_ == 0) sync_error_ = error;
    }
}

void WritebackSink::finish() {
    if (syncer_.joinable()) {
        syncer_.request_stop();
        syncer_.join();
    }
    if (sync_error_ != 0)
        fail(ErrorKind::io, name_ + ": write failed: " + std::strerror(sync_error_));
}

}  // namespace gradcodec::cli
