#pragma once
// What a tensor costs on the wire: its whole record, framing and checksum included, so
// rate targets and sweeps count what a stream really spends.
#include <cstdint>

#include "gradcodec/stream.hpp"

namespace gradcodec::cli {

std::uint64_t record_bytes(const TensorRecord& record);

// The stream header and end marker, spent once per stream.
std::uint64_t stream_framing_bytes();

}  // namespace gradcodec::cli
