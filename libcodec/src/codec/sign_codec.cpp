// sign and onebit: one bit per value (set when the value is negative) and per bucket 0, 1 or
// 2 reconstruction values (format-spec/codec-sign.md). signSGD sends the bits alone,
// EF-signSGD the bucket's mean magnitude with them, 1-bit SGD the means of each side.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "codec/stochastic_keys.hpp"
#include "common/byte_io.hpp"
#include "common/float_values.hpp"
#include "common/parallel.hpp"
#include "common/spec_params.hpp"
#include "gradcodec/error.hpp"
#include "quant/sign_means.hpp"

namespace gradcodec {
namespace {

struct SignParams {
    SignLevels kind = SignLevels::mean_magnitude;
    std::uint64_t bucket = 0;
};

SignParams compile_sign(const CodecSpec& spec) {
    SpecParams p(spec);
    SignParams out;
    out.kind = p.choice("scale", "mean", {"mean", "none"}) == "mean" ? SignLevels::mean_magnitude
                                                                     : SignLevels::unit;
    out.bucket = parse_bucket(p, 0);
    p.finish();
    return out;
}

SignParams compile_onebit(const CodecSpec& spec) {
    SpecParams p(spec);
    SignParams out;
    out.kind = SignLevels::two_means;
    out.bucket = parse_bucket(p, 0);
    p.finish();
    return out;
}

// Buckets per piece of parallel work: whole buckets, and whole bytes of sign bits.
std::uint64_t buckets_per_piece(std::uint64_t bucket) {
    std::uint64_t per = std::max<std::uint64_t>(1, (std::uint64_t{1} << 16) / bucket);
    while (per * bucket % 8 != 0) ++per;
    return per;
}

// Bit i % 8 of out[i / 8] set where x[i] < 0 (not for -0); out holds (x.size() + 7) / 8 bytes.
void pack_negative_bits(std::span<const float> x, std::uint8_t* out) {
    const std::size_t whole = x.size() / 8;
    for (std::size_t k = 0; k < whole; ++k) {
        unsigned byte = 0;
        for (unsigned t = 0; t < 8; ++t) byte |= static_cast<unsigned>(x[8 * k + t] < 0) << t;
        out[k] = static_cast<std::uint8_t>(byte);
    }
    unsigned last = 0;
    for (std::size_t i = 8 * whole; i < x.size(); ++i)
        last |= static_cast<unsigned>(x[i] < 0) << (i % 8);
    if (x.size() % 8 != 0) out[whole] = static_cast<std::uint8_t>(last);
}

void encode(const SignParams& params, const TensorMeta& meta, std::span<const std::byte> data,
            const EncodeOptions&, ByteOutput& out) {
    encode_float32(meta, data, [&](std::span<const float> x) {
        require_finite(meta, x);
        const std::uint64_t n = x.size();
        const std::uint64_t bucket = effective_bucket(params.bucket, n);
        const std::uint64_t buckets = bucket_count(n, bucket);
        const unsigned per_bucket = sign_level_count(params.kind);
        ByteWriter w(out);
        w.u8(static_cast<std::uint8_t>(params.kind));
        w.u64(bucket);
        const std::uint64_t level_bytes = 4 * per_bucket * buckets;
        std::uint8_t* levels = out.extend(level_bytes + (n + 7) / 8);
        std::uint8_t* bits = levels + level_bytes;  // every byte written by its piece
        parallel_pieces(
            buckets, buckets_per_piece(bucket), [&](std::size_t first, std::size_t count) {
                for (std::size_t b = first; b < first + count; ++b) {
                    const auto values = x.subspan(b * bucket, std::min(bucket, n - b * bucket));
                    float stored[2];
                    stored_levels(params.kind, sign_pair(params.kind, values), stored);
                    for (unsigned l = 0; l < per_bucket; ++l) {
                        std::uint32_t word;
                        std::memcpy(&word, &stored[l], 4);
                        for (int i = 0; i < 4; ++i)
                            levels[4 * (per_bucket * b + l) + i] =
                                static_cast<std::uint8_t>(word >> (8 * i));
                    }
                }
                // A piece is whole bytes of sign bits (buckets_per_piece), so it packs them on
                // its own, eight values to a byte.
                const std::uint64_t begin = first * bucket;
                const std::uint64_t end = std::min(n, (first + count) * bucket);
                pack_negative_bits(x.subspan(begin, end - begin), bits + begin / 8);
            });
    });
}

struct Header {
    SignLevels kind;
    std::uint64_t bucket, buckets;
};

Header read_header(ByteReader& r, std::uint64_t n) {
    const std::uint8_t kind = r.u8();
    if (kind > 2) r.damaged("unknown reconstruction kind " + std::to_string(kind));
    Header h{static_cast<SignLevels>(kind), r.u64(), 0};
    if (h.bucket < 1) r.damaged("bucket size 0");
    h.buckets = bucket_count(n, h.bucket);
    r.require(h.buckets, 4 * sign_level_count(h.kind), "bucket reconstruction values");
    return h;
}

// x[i] for i in [begin, end): the pair's negative value where bit i is set. Whole bytes of
// bits go eight values at a time.
void unpack_signs(std::span<const std::uint8_t> bits, std::uint64_t begin, std::uint64_t end,
                  const SignPair& pair, std::span<float> x) {
    const float values[2] = {pair.non_negative, pair.negative};
    std::uint64_t i = begin;
    for (; i < end && i % 8 != 0; ++i) x[i] = values[bits[i / 8] >> (i % 8) & 1];
    for (; i + 8 <= end; i += 8) {
        const unsigned byte = bits[i / 8];
        for (unsigned t = 0; t < 8; ++t) x[i + t] = values[byte >> t & 1];
    }
    for (; i < end; ++i) x[i] = values[bits[i / 8] >> (i % 8) & 1];
}

void decode(const TensorMeta& meta, std::span<const std::uint8_t> payload,
            std::span<std::byte> out) {
    const std::uint64_t n = meta.element_count();
    ByteReader r(payload, meta.name, "sign payload");
    const Header h = read_header(r, n);
    const unsigned per_bucket = sign_level_count(h.kind);
    // Plain signs keep no state per bucket: one pair serves them all, whatever the bucket size.
    ScratchVector<SignPair> pairs(per_bucket == 0 ? 1 : h.buckets);
    for (SignPair& pair : pairs) {
        float stored[2];
        for (unsigned l = 0; l < per_bucket; ++l) {
            stored[l] = r.f32();
            if (!std::isfinite(stored[l])) r.damaged("a reconstruction value that is not finite");
        }
        pair = pair_of_stored(h.kind, stored);
    }
    const auto bits = r.bytes((n + 7) / 8);
    r.expect_end();
    if (n % 8 != 0 && (bits.back() >> (n % 8)) != 0) r.damaged("non-zero padding bits");
    decode_float32(meta, out, [&](std::span<float> x) {
        for (std::uint64_t b = 0; b < h.buckets; ++b) {
            const SignPair& pair = pairs[per_bucket == 0 ? 0 : b];
            unpack_signs(bits, b * h.bucket, std::min(n, (b + 1) * h.bucket), pair, x);
        }
    });
}

PayloadStats describe(const TensorMeta& meta, std::span<const std::uint8_t> payload) {
    const std::uint64_t n = meta.element_count();
    ByteReader r(payload, meta.name, "sign payload");
    const Header h = read_header(r, n);
    r.bytes(4 * sign_level_count(h.kind) * h.buckets);
    r.bytes((n + 7) / 8);
    r.expect_end();
    PayloadStats s;
    s.has_bit_split = true;
    s.value_bits = 8 * payload.size();
    return s;
}

std::uint64_t payload_bound(const SignParams& params, const TensorMeta& meta,
                            const EncodeOptions&) {
    const std::uint64_t n = meta.element_count();
    const std::uint64_t buckets = bucket_count(n, effective_bucket(params.bucket, n));
    return 9 + 4 * sign_level_count(params.kind) * buckets + (n + 7) / 8;
}

}  // namespace

const CodecDef kSignCodec = codec_row<compile_sign, encode, payload_bound>({
    .name = "sign",
    .id = kCodecSign,
    .payload = "sign",
    .summary = "signSGD / EF-signSGD: one bit per value: scale=mean|none, bucket=B (0: the "
               "whole tensor)",
    .defaults = "scale=mean, bucket=0",
    .filter_ok = true,
    .decode = decode,
    .describe = describe,
});
const CodecDef kOnebitCodec = codec_row<compile_onebit, encode, payload_bound>({
    .name = "onebit",
    .id = kCodecSign,
    .payload = "sign",
    .summary = "1-bit SGD: one bit per value and each side's mean per bucket: bucket=B (0: the "
               "whole tensor)",
    .defaults = "bucket=0",
    .filter_ok = true,
    .decode = decode,
    .describe = describe,
});

}  // namespace gradcodec
