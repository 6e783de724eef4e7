#pragma once
// Keys that the stochastic and bucketed codecs share: `seed=S` and `bucket=B`.
#include <cstdint>
#include <optional>

#include "common/spec_params.hpp"

namespace gradcodec {

// seed=S, an integer in [0, 2^63). Absent: each record draws a fresh seed (record_seed).
std::optional<std::uint64_t> parse_seed(SpecParams& params);

// The seed a record is encoded with: the spec's, or a fresh one from the OS.
std::uint64_t record_seed(const std::optional<std::uint64_t>& seed);

// bucket=B, values per bucket; 0 (the default given) means the whole tensor is one bucket.
std::uint64_t parse_bucket(SpecParams& params, std::uint64_t fallback);

// The bucket size a payload records for n values: B, or n for a whole-tensor bucket (at
// least 1, so that an empty tensor has a valid bucket size too).
std::uint64_t effective_bucket(std::uint64_t bucket, std::uint64_t n);

// Buckets of `bucket` values that cover n values (the last may be shorter).
inline std::uint64_t bucket_count(std::uint64_t n, std::uint64_t bucket) {
    return n / bucket + (n % bucket != 0);
}

}  // namespace gradcodec
