#include "codec/stochastic_keys.hpp"

#include <algorithm>
#include <limits>

#include "common/seeded_random.hpp"

namespace gradcodec {

std::optional<std::uint64_t> parse_seed(SpecParams& params) {
    const auto seed = params.optional_integer("seed", 0, std::numeric_limits<std::int64_t>::max());
    if (!seed) return std::nullopt;
    return static_cast<std::uint64_t>(*seed);
}

std::uint64_t record_seed(const std::optional<std::uint64_t>& seed) {
    return seed ? *seed : fresh_seed();
}

std::uint64_t parse_bucket(SpecParams& params, std::uint64_t fallback) {
    return static_cast<std::uint64_t>(
        params.integer("bucket", static_cast<std::int64_t>(fallback), 0, std::int64_t{1} << 40));
}

std::uint64_t effective_bucket(std::uint64_t bucket, std::uint64_t n) {
    return bucket == 0 ? std::max<std::uint64_t>(n, 1) : bucket;
}

}  // namespace gradcodec
