#include "common/seeded_random.hpp"

#include <random>

namespace gradcodec {

std::uint64_t fresh_seed() {
    // libstdc++'s random_device reads getrandom(2) / /dev/urandom on Linux.
    std::random_device source;
    return (std::uint64_t{source()} << 32) | source();
}

}  // namespace gradcodec
