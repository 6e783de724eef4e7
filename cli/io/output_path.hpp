#pragma once
// How OUTPUT is written, decided before any work starts.
//
// A regular file (new, or existing with --force) is built aside and published atomically
// (atomic_output.hpp). Standard output, character devices, FIFOs and sockets (`-o /dev/null`,
// `-o /dev/stdout` into a pipe) are written in place, with no temporary and no rename: there
// is nothing to replace, so they need no --force. A block device is written in place too, with
// --force only. A symbolic link OUTPUT is refused unless it leads to such a non-regular file:
// gradcodec neither writes through a link into a regular file nor replaces the link.
#include <string>

#include "support/cli_support.hpp"

namespace gradcodec::cli {

enum class OutputMode { in_place, replace };

// Error(usage) for an OUTPUT that exists without `force`, a directory, a symbolic link to a
// regular file or to nothing, and an OUTPUT that is INPUT itself (by device and inode,
// standard input included).
OutputMode check_output_path(const std::string& input, const std::string& output, bool force);

// Opens an in-place OUTPUT ("-" is standard output) for writing; refuses a terminal, as
// `what` (a binary stream, raw values) would only garble it.
FilePtr open_in_place(const std::string& output, const char* what);

// Flushes an in-place OUTPUT and syncs it where that means anything; Error(io) on failure.
void finish_in_place(std::FILE* out, const std::string& output);

}  // namespace gradcodec::cli
