#pragma once
// Caps that keep one fuzz input well inside libFuzzer's -rss_limit_mb (scripts/fuzz uses
// 2048): a tensor of 2^21 f64 elements is 16 MiB, a record at most 16 MiB.
#include <cstdint>

#include "gradcodec/stream.hpp"

namespace gcfuzz {

inline constexpr std::uint64_t kMaxElements = 1u << 21;

inline gradcodec::ReadLimits fuzz_limits() {
    gradcodec::ReadLimits limits;
    limits.max_elements = kMaxElements;
    limits.max_record_bytes = 1u << 24;
    return limits;
}

}  // namespace gcfuzz
