#include "gradcodec/positions.hpp"

#include <string>

#include "common/byte_io.hpp"
#include "gradcodec/error.hpp"
#include "index/position_coder.hpp"
#include "select/random_positions.hpp"

namespace gradcodec {

std::vector<std::uint64_t> random_positions(std::uint64_t n, std::uint64_t k, std::uint64_t seed) {
    if (k > n) {
        fail(ErrorKind::usage,
             "random_positions: k = " + std::to_string(k) + " exceeds n = " + std::to_string(n));
    }
    const ScratchVector<std::uint64_t> drawn = draw_random_positions(n, k, seed);
    return {drawn.begin(), drawn.end()};
}

std::vector<std::uint8_t> encode_position_section(std::span<const std::uint64_t> sorted,
                                                  std::uint64_t n) {
    std::vector<std::uint8_t> out;
    ByteWriter w(out);
    encode_positions(sorted, n, w);
    return out;
}

std::vector<std::uint64_t> decode_position_section(std::span<const std::uint8_t> section,
                                                   std::uint64_t n) {
    ByteReader r(section, "position section");
    std::vector<std::uint64_t> out = decode_positions(r, n);
    r.expect_end();
    return out;
}

}  // namespace gradcodec
