#pragma once
// Opening a stream for reading with the CLI's caps, and refusing binary output to terminals.
#include <cstdint>
#include <string>

#include "gradcodec/stream.hpp"

namespace gradcodec::cli {

ReadLimits limits_with(std::uint64_t max_elements);

// Error(usage) when OUTPUT is "-" and standard output is a terminal.
void refuse_terminal_output(const std::string& output, const char* what);

}  // namespace gradcodec::cli
