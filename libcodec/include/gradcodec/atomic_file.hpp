#pragma once
// A regular file built aside and published under its name only on commit(), so bad input, a
// full disk, an exception or a crash never leave a partial file, and a failure never touches
// an old one. The CLI's OUTPUT, Python's StreamWriter and any other writer of whole files use
// this one implementation.
//
// The file is unnamed (O_TMPFILE) in the target's own directory: no symlink can be planted in
// its way, no other process can open it, and nothing is left whatever ends the process, SIGKILL
// included. commit() fsyncs it and publishes it by linking it in under the target's name, which
// fails if the name appeared meanwhile (another writer, overwrite off), or by renaming over the
// old file (overwrite on, keeping that file's mode); then it fsyncs the directory. Where
// O_TMPFILE is missing (some filesystems), a file `.gradcodec-XXXXXXXXXXXXXXXX` with a random
// name, created with O_EXCL|O_NOFOLLOW, takes its place, published with
// renameat2(RENAME_NOREPLACE) or link(); a process that removes it from a signal handler is
// told its name through TempNameHooks. A directory, a device, a FIFO, a socket or a symbolic
// link at the target is never replaced, overwrite or not.
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

#include "gradcodec/error.hpp"
#include "gradcodec/stream.hpp"

// Everything declared here is the shared library's API; the rest of it stays hidden.
#pragma GCC visibility push(default)
namespace gradcodec {

// Error(usage) for a target name that is taken while overwriting is off: at construction, or
// at commit() when the name appeared meanwhile. The message is "PATH: already exists".
class FileExistsError : public Error {
  public:
    explicit FileExistsError(const std::string& path)
        : Error(ErrorKind::usage, path + ": already exists") {}
};

// Told the full path of each named temporary before it is created (`track`; false when it
// cannot be tracked, e.g. too long, and the file is then not created: Error(usage)) and when it
// is gone or published (`untrack`). Both may be null. For a process whose signal handlers
// unlink the temporary; the functions must not throw.
struct TempNameHooks {
    bool (*track)(const char* path) = nullptr;
    void (*untrack)() = nullptr;
};

class AtomicFile final : public ByteSink {
  public:
    // A file to publish as `path`. Error(usage) when `path` is a directory or another
    // non-regular file (symbolic links included); FileExistsError when it is a regular file and
    // `overwrite` is false; Error(io) when the directory cannot be opened or written.
    AtomicFile(std::string path, bool overwrite, TempNameHooks hooks = {});
    // A scratch file in `directory`, never published (a file to build and then copy out).
    struct Scratch {};
    AtomicFile(Scratch, std::string directory, TempNameHooks hooks = {});
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    ~AtomicFile() override;  // abort() unless committed

    const std::string& path() const { return path_; }
    // A path that opens the file being built (for a library that takes names, like HDF5):
    // /proc/self/fd/N, or the named temporary.
    const std::string& open_path() const { return open_path_; }
    int fd() const { return fd_; }
    std::FILE* file();  // a stdio stream on the file, made on first use
    // Appends through file(); Error(io) naming the target on failure.
    void write(std::span<const std::uint8_t> bytes) override;
    void close_file();  // flushes and closes the stdio stream, reporting write errors
    // Copies the whole file to `out` (named `name` in errors).
    void copy_to(std::FILE* out, const std::string& name) const;
    // Flushes, fsyncs the file, publishes it and fsyncs the directory. FileExistsError when
    // the name was taken meanwhile (overwrite off), Error(usage) when overwriting would replace
    // a non-regular file, Error(io) otherwise; the file is then still unpublished, and abort()
    // or the destructor removes it.
    void commit();
    bool committed() const { return committed_; }
    // Drops the file; nothing is published. Idempotent; does nothing after commit().
    void abort() noexcept;

  private:
    void create_in();
    void publish_unnamed(const std::string& base);
    void publish_named(const std::string& base);
    bool track(const std::string& full);
    void untrack();
    std::string path_;  // empty for scratch
    bool overwrite_ = false;
    TempNameHooks hooks_;
    std::string directory_;
    int dir_fd_ = -1;
    int fd_ = -1;
    std::string temp_name_;  // the named temporary in directory_; empty when unnamed
    std::string open_path_;
    std::FILE* file_ = nullptr;
    bool committed_ = false;
};

}  // namespace gradcodec
#pragma GCC visibility pop
