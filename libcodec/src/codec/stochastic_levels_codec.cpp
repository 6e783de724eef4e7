// qsgd and terngrad: per bucket a scale, then every value stochastically rounded to one of the
// bucket's levels, the levels coded by the symbol section (format-spec/codec-qsgd.md). TernGrad
// is the grid of one level scaled by the bucket's largest magnitude; QSGD's s levels are
// scaled by the bucket's L2 norm. Both are unbiased.
#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "codec/stochastic_keys.hpp"
#include "codec/symbol_section.hpp"
#include "common/byte_io.hpp"
#include "common/float_values.hpp"
#include "common/parallel.hpp"
#include "common/spec_params.hpp"
#include "gradcodec/error.hpp"
#include "quant/stochastic_levels.hpp"
#include "quant/value_coder.hpp"

namespace gradcodec {
namespace {

constexpr std::uint32_t kMaxLevels = 1u << 20;

struct LevelParams {
    BucketScale scale = BucketScale::l2_norm;
    std::uint32_t levels = 16;
    std::uint64_t bucket = 512;
    std::optional<std::uint64_t> seed;
};

LevelParams compile_qsgd(const CodecSpec& spec) {
    SpecParams p(spec);
    LevelParams out;
    out.levels = static_cast<std::uint32_t>(p.integer("levels", 16, 1, kMaxLevels));
    out.bucket = parse_bucket(p, 512);
    out.seed = parse_seed(p);
    p.finish();
    return out;
}

LevelParams compile_terngrad(const CodecSpec& spec) {
    SpecParams p(spec);
    LevelParams out;
    out.scale = BucketScale::max_magnitude;
    out.levels = 1;
    out.bucket = parse_bucket(p, 0);
    out.seed = parse_seed(p);
    p.finish();
    return out;
}

std::string codec_name(BucketScale scale) {
    return scale == BucketScale::l2_norm ? "qsgd" : "terngrad";
}

// Pieces of whole buckets, so that threads split the work without changing a byte.
constexpr std::uint64_t kPieceValues = std::uint64_t{1} << 16;

void encode(const LevelParams& params, const TensorMeta& meta, std::span<const std::byte> data,
            const EncodeOptions&, ByteOutput& out) {
    encode_float32(meta, data, [&](std::span<const float> x) {
        require_finite(meta, x);
        const std::uint64_t n = x.size();
        const std::uint64_t bucket = effective_bucket(params.bucket, n);
        const std::uint64_t buckets = bucket_count(n, bucket);
        const std::uint64_t seed = record_seed(params.seed);
        const float limit = dtype_value_limit(meta.dtype);
        ScratchVector<float> scales(buckets);
        ScratchVector<std::uint32_t> symbols(n);
        const std::uint64_t per_piece = std::max<std::uint64_t>(1, kPieceValues / bucket);
        parallel_pieces(buckets, per_piece, [&](std::size_t first_bucket, std::size_t count) {
            ScratchVector<std::int32_t> levels;
            for (std::size_t b = first_bucket; b < first_bucket + count; ++b) {
                const std::uint64_t first = b * bucket;
                const auto values = x.subspan(first, std::min(bucket, n - first));
                const float scale = bucket_scale(params.scale, values);
                if (!std::isfinite(scale) || level_value(scale, 1, 1) > limit) {
                    fail(ErrorKind::bad_input,
                         meta.name + ": " + codec_name(params.scale) + " bucket " +
                             std::to_string(b) + " has a scale beyond the range of " +
                             std::string(dtype_name(meta.dtype)) + "; use smaller buckets");
                }
                scales[b] = scale;
                levels.resize(values.size());
                round_to_levels(values, scale, params.levels, seed, first, levels);
                for (std::size_t i = 0; i < values.size(); ++i)
                    symbols[first + i] = symbol_of_level(levels[i]);
            }
        });
        ByteWriter w(out);
        w.u64(seed);
        w.u8(static_cast<std::uint8_t>(params.scale));
        w.u32(params.levels);
        w.u64(bucket);
        for (const float s : scales) w.f32(s);
        encode_symbols(symbols, 2 * params.levels + 1, w);
    });
}

struct Header {
    BucketScale scale;
    std::uint32_t levels;
    std::uint64_t bucket, buckets;
};

Header read_header(ByteReader& r, std::uint64_t n) {
    r.u64();  // the seed: needed to encode again, not to decode
    Header h{};
    const std::uint8_t kind = r.u8();
    if (kind > 1) r.damaged("unknown scale kind " + std::to_string(kind));
    h.scale = static_cast<BucketScale>(kind);
    h.levels = r.u32();
    if (h.levels < 1 || h.levels > kMaxLevels)
        r.damaged("level count " + std::to_string(h.levels) + " outside 1.." +
                  std::to_string(kMaxLevels));
    h.bucket = r.u64();
    if (h.bucket < 1) r.damaged("bucket size 0");
    h.buckets = bucket_count(n, h.bucket);
    r.require(h.buckets, 4, "bucket scales");
    return h;
}

void decode(const TensorMeta& meta, std::span<const std::uint8_t> payload,
            std::span<std::byte> out) {
    const std::uint64_t n = meta.element_count();
    ByteReader r(payload, meta.name, "qsgd payload");
    const Header h = read_header(r, n);
    ScratchVector<float> scales(h.buckets);
    for (float& s : scales) {
        s = r.f32();
        if (!(s >= 0) || !std::isfinite(s))
            r.damaged("a bucket scale that is negative or not finite");
    }
    ScratchVector<std::uint32_t> symbols(n);
    decode_symbols(r, 2 * h.levels + 1, symbols);
    r.expect_end();
    decode_float32(meta, out, [&](std::span<float> x) {
        for (std::uint64_t i = 0; i < n; ++i)
            x[i] = level_value(scales[i / h.bucket], level_of_symbol(symbols[i]), h.levels);
    });
}

PayloadStats describe(const TensorMeta& meta, std::span<const std::uint8_t> payload) {
    ByteReader r(payload, meta.name, "qsgd payload");
    const Header h = read_header(r, meta.element_count());
    r.bytes(4 * h.buckets);
    PayloadStats s;
    s.has_bit_split = true;
    s.value_bits = 8 * (8 + 1 + 4 + 8 + 4 * h.buckets) + symbol_section_bits(r);
    r.expect_end();
    return s;
}

std::uint64_t payload_bound(const LevelParams& params, const TensorMeta& meta,
                            const EncodeOptions&) {
    const std::uint64_t n = meta.element_count();
    const std::uint64_t buckets = bucket_count(n, effective_bucket(params.bucket, n));
    return 21 + 4 * buckets + symbol_section_bound(n, 2 * params.levels + 1);
}

// --target's ladder of levels.
constexpr std::array<int, 13> kLevelsLadder{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128, 256};

}  // namespace

const CodecDef kQsgdCodec = codec_row<compile_qsgd, encode, payload_bound>({
    .name = "qsgd",
    .id = kCodecLevels,
    .payload = "qsgd",
    .summary = "QSGD: stochastic levels of each bucket's L2 norm: levels=N, bucket=B, seed=S",
    .defaults = "levels=16, bucket=512",
    .filter_ok = true,
    .draws_seed = true,
    .knob = {KnobKind::ladder, "levels", kLevelsLadder, false},
    .decode = decode,
    .describe = describe,
});
const CodecDef kTerngradCodec = codec_row<compile_terngrad, encode, payload_bound>({
    .name = "terngrad",
    .id = kCodecLevels,
    .payload = "qsgd",
    .summary = "TernGrad: {-1,0,1} times each bucket's largest magnitude: bucket=B (0: the "
               "whole tensor), seed=S",
    .defaults = "bucket=0",
    .filter_ok = true,
    .draws_seed = true,
    .decode = decode,
    .describe = describe,
});

}  // namespace gradcodec
