#include "quant/range_section.hpp"
#include "quant/value_coder.hpp"

namespace gradcodec {

std::uint64_t range_section_bound(int bits, std::uint64_t count, bool allow_nonfinite) {
    const std::uint64_t header = 7;  // u8 bits, u8 mantissa, u8 flags, u32 pbase
    const std::uint64_t exceptions = allow_nonfinite ? 8 + 12 * count : 0;
    return header + exceptions + (count * static_cast<std::uint64_t>(bits) + 7) / 8;
}

std::uint64_t value_section_bound(const ValueCoderParams& params, std::uint64_t count,
                                  bool allow_nonfinite) {
    switch (params.format) {
        case ValueFormat::f32:
            return 1 + 4 * count;
        case ValueFormat::f16:
        case ValueFormat::bf16:
            return 1 + 2 * count;
        case ValueFormat::rangeq:
            return 1 + range_section_bound(params.bits, count, allow_nonfinite);
    }
    return 1 + 4 * count + 8 + 12 * count;  // unreachable for a parsed ValueCoderParams
}

}  // namespace gradcodec
