#pragma once
// Output written through stdio, with each stretch of a regular file sent on its way to disk as
// soon as it is complete. The fsync that publishes OUTPUT (or ends writing to a regular file
// behind standard output) then finds almost nothing left to wait for; before, it waited for the
// whole file after the last record, about 0.1 s for 150 MB here: a quarter of a dump's encode,
// with every thread idle. With a thread to spare, a thread of the sink's own syncs each stretch
// (fdatasync: written and flushed from the device's cache); on one thread, the kernel is only
// asked to start writing it (sync_file_range), which takes less of the final wait away. Pipes
// and devices are written as before.
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <span>
#include <stop_token>
#include <string>
#include <thread>

#include "gradcodec/stream.hpp"

namespace gradcodec::cli {

class WritebackSink final : public ByteSink {
  public:
    // `name` names the output in errors; `own_thread`: sync stretches on a thread of its own.
    WritebackSink(std::FILE* file, const std::string& name, bool own_thread);
    WritebackSink(const WritebackSink&) = delete;
    WritebackSink& operator=(const WritebackSink&) = delete;

    void write(std::span<const std::uint8_t> bytes) override;
    // Waits for the stretches in progress; Error(io) naming the output when syncing one failed
    // (the final fsync might not report it again). Call before that fsync.
    void finish();

    static constexpr std::uint64_t kStretchBytes = std::uint64_t{8} << 20;

  private:
    void start_writeback();
    void sync_stretches(std::stop_token stop);

    FileSink sink_;
    std::FILE* file_;
    std::string name_;
    int fd_;
    bool regular_ = false;
    std::uint64_t unwritten_ = 0;  // bytes written since the last stretch was sent on
    std::mutex mutex_;
    std::condition_variable_any stretch_ready_;
    bool sync_wanted_ = false;  // guarded by mutex_
    int sync_error_ = 0;        // guarded by mutex_
    // Last, so that the thread is stopped and joined before what it uses is destroyed.
    std::jthread syncer_;
};

}  // namespace gradcodec::cli
