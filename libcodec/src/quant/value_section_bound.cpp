#include "common/checked_size.hpp"
#include "quant/range_section.hpp"
#include "quant/value_coder.hpp"

namespace gradcodec {

std::uint64_t range_section_bound(int bits, std::uint64_t count, bool allow_nonfinite) {
    const std::uint64_t header = 7;  // u8 bits, u8 mantissa, u8 flags, u32 pbase
    const std::uint64_t exceptions = allow_nonfinite ? size_add(8, size_mul(12, count)) : 0;
    return size_add(header, exceptions,
                    size_bytes_of_bits(count, static_cast<std::uint64_t>(bits)));
}

std::uint64_t value_section_bound(const ValueCoderParams& params, std::uint64_t count,
                                  bool allow_nonfinite) {
    switch (params.format) {
        case ValueFormat::f32:
            return size_add(1, size_mul(4, count));
        case ValueFormat::f16:
        case ValueFormat::bf16:
            return size_add(1, size_mul(2, count));
        case ValueFormat::rangeq:
            return size_add(1, range_section_bound(params.bits, count, allow_nonfinite));
    }
    // Unreachable for a parsed ValueCoderParams.
    return size_add(1, size_mul(4, count), 8, size_mul(12, count));
}

}  // namespace gradcodec
