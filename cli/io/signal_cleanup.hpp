#pragma once
// The one named temporary file that exists at a time, removed by every terminating signal and
// crash the process can catch. Only SIGKILL (and a power cut) can leave it behind. And the
// input mapped into memory, named when it shrinks under its mapping.
#include <string>

namespace gradcodec::cli {

// Installs the cleanup for every signal whose default action ends the process (a signal
// already ignored, like SIGHUP under nohup, stays ignored), and, outside sanitizer builds,
// for crashes (SIGSEGV on an alternate stack, SIGBUS, SIGABRT, SIGILL, SIGFPE...). SIGXFSZ is
// ignored, so a file-size limit becomes a write error. Call once, before other threads exist.
// libhdf5 crashes on some damaged files (it trusts offsets and sizes it read). While a
// thread reads one under gradcodec_hdf5's Libhdf5Reading guard (hdf5_dump.cpp), a SIGSEGV,
// SIGBUS (or SIGFPE, SIGILL, SIGABRT) removes the temporary, writes the one line "gradcodec:
// libhdf5 crashed reading FILE: the file is damaged" and exits with 3 (bad input), instead of
// a bare crash. A crash anywhere else is still one. Only the main thread reads HDF5 files: its
// alternate stack lets the handler run after a stack overflow as well.
void install_signal_cleanup();

// Names the temporary the handlers unlink (at most 4095 bytes; false when longer), or none.
bool set_pending_temp(const char* path);
void clear_pending_temp();

// While it lives, names the input file mapped into memory. A file that shrinks under its
// mapping raises SIGBUS at the next read past its new end; the handler then removes the
// temporary, says which file changed, and exits with 4 (I/O failure), as a failed read() would.
// One input is named at a time. named() is false for a name too long to keep (over 4095 bytes
// once printable): such a file must be read, not mapped.
class MappedInputName {
  public:
    explicit MappedInputName(const std::string& path);
    ~MappedInputName();
    MappedInputName(MappedInputName&& other) noexcept;
    MappedInputName(const MappedInputName&) = delete;
    MappedInputName& operator=(const MappedInputName&) = delete;
    MappedInputName& operator=(MappedInputName&&) = delete;

    bool named() const { return named_; }

  private:
    bool named_;
};

}  // namespace gradcodec::cli
