#pragma once
// Opening a stream for reading with the CLI's caps, and refusing binary output to terminals.
#include <cstdint>
#include <string>

#include "gradcodec/stream.hpp"

namespace gradcodec::cli {

// 0 keeps the default cap. A raised max_elements raises max_record_bytes to match, unless
// that is given too.
ReadLimits limits_with(std::uint64_t max_elements, std::uint64_t max_record_bytes = 0);

// Error(usage) when OUTPUT is "-" and standard output is a terminal.
void refuse_terminal_output(const std::string& output, const char* what);

}  // namespace gradcodec::cli
