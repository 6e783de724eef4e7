// natural: every value stochastically rounded to a signed power of two, stored as a sign bit
// and an exponent code just wide enough for the tensor's exponent range
// (format-spec/codec-natural.md). Unbiased, at most 10 bits a value (9 for normal f32 ranges).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "codec/stochastic_keys.hpp"
#include "common/bit_pack.hpp"
#include "common/byte_io.hpp"
#include "common/float_values.hpp"
#include "common/parallel.hpp"
#include "common/spec_params.hpp"
#include "gradcodec/error.hpp"
#include "quant/natural_rounding.hpp"

namespace gradcodec {
namespace {

constexpr int kSmallestExponent = -149;  // binary32's smallest subnormal, 2^-149
constexpr int kLargestExponent = 127;
constexpr int kMaxWidth = 9;  // bit_width(127 - (-149) + 1)

struct NaturalParams {
    std::optional<std::uint64_t> seed;
};

NaturalParams compile(const CodecSpec& spec) {
    SpecParams p(spec);
    NaturalParams out{parse_seed(p)};
    p.finish();
    return out;
}

int largest_power_of(DType dtype) {
    return dtype == DType::f16 ? 15 : kLargestExponent;
}

constexpr std::size_t kPiece = std::size_t{1} << 16;

void encode(const NaturalParams& params, const TensorMeta& meta, std::span<const std::byte> data,
            const EncodeOptions&, ByteOutput& out) {
    encode_float32(meta, data, [&](std::span<const float> x) {
        require_finite(meta, x);
        const std::uint64_t n = x.size();
        const std::uint64_t seed = record_seed(params.seed);
        ScratchVector<std::int16_t> exponents(n);
        parallel_pieces(n, kPiece, [&](std::size_t first, std::size_t count) {
            round_to_powers(x.subspan(first, count), seed, first, largest_power_of(meta.dtype),
                            std::span(exponents).subspan(first, count));
        });
        int lowest = kLargestExponent + 1, highest = kSmallestExponent - 1;
        for (const std::int16_t e : exponents) {
            if (e == kZeroExponent) continue;
            lowest = std::min<int>(lowest, e);
            highest = std::max<int>(highest, e);
        }
        const bool any = highest >= lowest;
        const int e_min = any ? lowest : 0;
        const int width =
            any ? static_cast<int>(std::bit_width(static_cast<unsigned>(highest - lowest + 1))) : 0;
        ScratchVector<std::uint32_t> codes(n);
        parallel_pieces(n, kPiece, [&](std::size_t first, std::size_t count) {
            for (std::size_t i = first; i < first + count; ++i) {
                const std::uint32_t exponent_code =
                    exponents[i] == kZeroExponent
                        ? 0u
                        : static_cast<std::uint32_t>(exponents[i] - e_min + 1);
                codes[i] = (exponent_code << 1) | (std::signbit(x[i]) ? 1u : 0u);
            }
        });
        ByteWriter w(out);
        w.u64(seed);
        w.u16(static_cast<std::uint16_t>(static_cast<std::int16_t>(e_min)));
        w.u8(static_cast<std::uint8_t>(width));
        pack_bits(codes, width + 1, out.extend(packed_byte_count(n, width + 1)));
    });
}

struct Header {
    int e_min, width;
};

Header read_header(ByteReader& r, std::uint64_t n) {
    r.u64();  // the seed
    Header h{static_cast<std::int16_t>(r.u16()), r.u8()};
    if (h.width > kMaxWidth) r.damaged("exponent width " + std::to_string(h.width) + " above 9");
    if (h.e_min < kSmallestExponent || h.e_min > kLargestExponent)
        r.damaged("smallest exponent " + std::to_string(h.e_min) + " outside -149..127");
    r.require(packed_byte_count(n, h.width + 1), 1, "sign and exponent codes");
    return h;
}

void decode(const TensorMeta& meta, std::span<const std::uint8_t> payload,
            std::span<std::byte> out) {
    const std::uint64_t n = meta.element_count();
    ByteReader r(payload, meta.name, "natural payload");
    const Header h = read_header(r, n);
    const auto packed = r.bytes(packed_byte_count(n, h.width + 1));
    r.expect_end();
    if (!padding_is_zero(packed, n, h.width + 1)) r.damaged("non-zero padding bits");
    decode_float32(meta, out, [&](std::span<float> x) {
        parallel_pieces(n, kPiece, [&](std::size_t first, std::size_t count) {
            ScratchVector<std::uint32_t> codes(count);
            // Pieces start on multiples of 8 codes, so on whole bytes.
            unpack_bits(packed.data() + first / 8 * (h.width + 1), h.width + 1, codes);
            for (std::size_t i = 0; i < count; ++i) {
                const std::uint32_t c = codes[i] >> 1;
                const int e = h.e_min + static_cast<int>(c) - 1;
                if (c != 0 && e > kLargestExponent) {
                    fail(ErrorKind::damaged_stream,
                         meta.name + ": natural payload: exponent " + std::to_string(e) +
                             " above 127 at element " + std::to_string(first + i));
                }
                const float magnitude = c == 0 ? 0.0f : std::ldexp(1.0f, e);
                x[first + i] = (codes[i] & 1) ? -magnitude : magnitude;
            }
        });
    });
}

PayloadStats describe(const TensorMeta& meta, std::span<const std::uint8_t> payload) {
    const std::uint64_t n = meta.element_count();
    ByteReader r(payload, meta.name, "natural payload");
    const Header h = read_header(r, n);
    r.bytes(packed_byte_count(n, h.width + 1));
    r.expect_end();
    PayloadStats s;
    s.has_bit_split = true;
    s.value_bits = 8 * payload.size();
    return s;
}

std::uint64_t payload_bound(const NaturalParams&, const TensorMeta& meta, const EncodeOptions&) {
    return 11 + packed_byte_count(meta.element_count(), kMaxWidth + 1);
}

}  // namespace

const CodecDef kNaturalCodec = codec_row<compile, encode, payload_bound>({
    .name = "natural",
    .id = kCodecNatural,
    .payload = "natural",
    .summary = "natural compression: stochastic rounding to powers of two (seed=S)",
    .filter_ok = true,
    .draws_seed = true,
    .decode = decode,
    .describe = describe,
});

}  // namespace gradcodec
