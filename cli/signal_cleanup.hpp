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

// While it lives, the calling thread is inside libhdf5 reading FILE. libhdf5 crashes on some
// damaged files (it trusts offsets and sizes it read); a SIGSEGV, SIGBUS (or SIGFPE, SIGILL,
// SIGABRT) then removes the
// temporary, writes the one line "gradcodec: libhdf5 crashed reading FILE: the file is
// damaged" and exits with 3 (bad input), instead of a bare crash. A crash anywhere else is
// still one. Guards nest; Libhdf5Paused lifts them while our own code runs in between (a
// callback of a walk). Only the main thread reads HDF5 files: its alternate stack lets the
// handler run after a stack overflow as well.
class Libhdf5Reading {
  public:
    explicit Libhdf5Reading(const std::string& file);
    ~Libhdf5Reading();
    Libhdf5Reading(const Libhdf5Reading&) = delete;
    Libhdf5Reading& operator=(const Libhdf5Reading&) = delete;

  private:
    std::string name_;
    const char* previous_;
};

class Libhdf5Paused {
  public:
    Libhdf5Paused();
    ~Libhdf5Paused();
    Libhdf5Paused(const Libhdf5Paused&) = delete;
    Libhdf5Paused& operator=(const Libhdf5Paused&) = delete;

  private:
    const char* previous_;
};

}  // namespace gradcodec::cli
