#pragma once
// A regular OUTPUT built aside and published only on success, so bad input, a full disk, a
// signal or a crash never leave a partial OUTPUT, and a failure never touches an old one.
//
// The file is unnamed (O_TMPFILE) in OUTPUT's own directory: no symlink can be planted in its
// way, no other process can open it, and nothing is left whatever ends the process, SIGKILL
// included. It is published by linking it in under OUTPUT's name, which fails if the name
// appeared meanwhile (another writer, no --force), or by renaming over the old file (--force,
// keeping that file's mode). File and directory are fsynced before success is reported.
// Where O_TMPFILE is missing (some filesystems), a mkstemp file `.gradcodec-XXXXXX` takes its
// place, published with renameat2(RENAME_NOREPLACE); the signal and crash handlers unlink it,
// so only SIGKILL can leave it.
#include <cstdio>
#include <string>

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
    ~AtomicOutput();  // the file disappears unless committed

    // A path that opens the file being built (for HDF5): /proc/self/fd/N, or the named temporary.
    const std::string& open_path() const { return open_path_; }
    std::FILE* file();  // a stdio stream on the file, made on first use
    void close_file();  // flushes the stdio stream, reporting write errors
    // Copies the whole file to `out` (named `name` in errors).
    void copy_to(std::FILE* out, const std::string& name) const;
    void commit();  // fsync, publish, fsync the directory

  private:
    void create_in(const std::string& directory);
    void publish_unnamed(const std::string& base);
    void publish_named(const std::string& base);
    std::string path_;  // empty for scratch
    bool replace_ = false;
    std::string directory_;
    int dir_fd_ = -1;
    int fd_ = -1;
    std::string temp_name_;  // the named temporary in directory_; empty when unnamed
    std::string open_path_;
    std::FILE* file_ = nullptr;
    bool committed_ = false;
};

}  // namespace gradcodec::cli
