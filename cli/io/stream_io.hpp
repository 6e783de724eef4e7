#pragma once
// Opening a stream for reading with the CLI's caps.
#include <cstdint>
#include <memory>
#include <string>

#include "gradcodec/stream.hpp"

namespace gradcodec::cli {

// 0 keeps the default cap. A raised max_elements raises max_record_bytes to match, unless
// that is given too.
ReadLimits limits_with(std::uint64_t max_elements, std::uint64_t max_record_bytes = 0);

// Opens the stream of INPUT (named `input` in errors). Input that is not a stream at all is
// bad input saying so, with a hint at encode when it is an HDF5 file.
std::unique_ptr<StreamReader> open_stream(ByteSource& source, const std::string& input,
                                          ReadLimits limits);

}  // namespace gradcodec::cli
