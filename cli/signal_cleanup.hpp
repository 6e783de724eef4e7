#pragma once
// The one named temporary file that exists at a time, removed by every terminating signal and
// crash the process can catch. Only SIGKILL (and a power cut) can leave it behind.
namespace gradcodec::cli {

// Installs the cleanup for every signal whose default action ends the process (a signal
// already ignored, like SIGHUP under nohup, stays ignored), and, outside sanitizer builds,
// for crashes (SIGSEGV on an alternate stack, SIGBUS, SIGABRT, SIGILL, SIGFPE...). SIGXFSZ is
// ignored, so a file-size limit becomes a write error. Call once, before other threads exist.
void install_signal_cleanup();

// Names the temporary the handlers unlink (at most 4095 bytes; false when longer), or none.
bool set_pending_temp(const char* path);
void clear_pending_temp();

// Names the input file mapped into memory now, or none. A file that shrinks under its mapping
// raises SIGBUS at the next read past its new end; the handler then removes the temporary,
// says which file changed, and exits with 4 (I/O failure), as a failed read() would. The name
// is already printable (at most 4095 bytes; false when longer, and no name is kept).
bool set_mapped_input(const char* path);
void clear_mapped_input();

}  // namespace gradcodec::cli
