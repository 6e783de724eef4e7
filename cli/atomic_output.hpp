#pragma once
// Outputs are written under a temporary name beside OUTPUT and renamed on success, so bad
// input, a full disk, SIGINT or SIGTERM never leave a partial OUTPUT. SIGKILL can leave only
// the clearly named temporary `OUTPUT.tmp-gradcodec-<pid>`.
#include <cstdio>
#include <string>

namespace gradcodec::cli {

// Installs the SIGINT/SIGTERM/SIGHUP/SIGPIPE cleanup and ignores SIGXFSZ, so a file-size limit
// becomes a write error. Call once at start-up.
void install_signal_cleanup();

// Refuses (Error usage) an OUTPUT that exists without `force`, or that is INPUT itself.
void check_output_path(const std::string& input, const std::string& output, bool force);

class AtomicOutput {
public:
    explicit AtomicOutput(std::string path);  // creates the temporary file
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;
    ~AtomicOutput();  // removes the temporary unless committed

    const std::string& temp_path() const { return temp_; }
    std::FILE* file();       // the temporary, opened for writing on first use
    void close_file();       // flushes and closes the stdio stream, reporting write errors
    void commit();           // fsync and rename onto the final path

private:
    std::string path_;
    std::string temp_;
    std::FILE* file_ = nullptr;
    bool committed_ = false;
};

}  // namespace gradcodec::cli
