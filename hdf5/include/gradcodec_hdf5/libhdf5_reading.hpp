#pragma once
// Which file the calling thread's libhdf5 is reading, for a crash handler. libhdf5 crashes on
// some damaged files (it trusts offsets and sizes it read); a program's SIGSEGV or SIGBUS
// handler can then name the damaged file instead of crashing bare (the CLI's
// io/signal_cleanup.cpp does).
#include <string>

namespace gradcodec::hdf5 {

// The printable name of the file libhdf5 reads on this thread, or null. Async-signal-safe: it
// reads one initial-exec thread-local pointer and calls nothing.
const char* libhdf5_input();

// While it lives, the calling thread is inside libhdf5 reading FILE. Guards nest;
// Libhdf5Paused lifts them while our own code runs in between (a callback of a walk).
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

}  // namespace gradcodec::hdf5
