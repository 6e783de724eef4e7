#pragma once
// A regular OUTPUT built aside and published only on success: the library's AtomicFile
// (gradcodec/atomic_file.hpp), with what only the CLI adds. Its named temporaries, where
// O_TMPFILE is missing or a replace needs a name to rename, are registered with the signal
// and crash handlers (signal_cleanup.hpp), so only SIGKILL can leave one; a name that appears
// while gradcodec runs is reported as a lost race that --force would settle; and a scratch
// file goes to TMPDIR.
#include <cstdio>
#include <optional>
#include <string>

#include "gradcodec/atomic_file.hpp"

namespace gradcodec::cli {

class AtomicOutput {
  public:
    // A file to publish as `path`; an existing file there is replaced only when `replace`.
    AtomicOutput(std::string path, bool replace);
    // A scratch file in TMPDIR, never published (HDF5 built for a pipe or a device).
    struct Scratch {};
    explicit AtomicOutput(Scratch);
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;

    // A path that opens the file being built (for HDF5): /proc/self/fd/N, or the named temporary.
    const std::string& open_path() const { return file_->open_path(); }
    std::FILE* file() { return file_->file(); }  // a stdio stream on the file, made on first use
    void close_file() { file_->close_file(); }   // flushes the stdio stream, reporting errors
    // Copies the whole file to `out` (named `name` in errors).
    void copy_to(std::FILE* out, const std::string& name) const { file_->copy_to(out, name); }
    void commit();  // fsync, publish, fsync the directory

  private:
    std::optional<AtomicFile> file_;  // the file disappears unless committed
};

}  // namespace gradcodec::cli
