// randomk: k positions drawn from a seed that the payload records, and the values there
// (format-spec/codec-randomk.md). Every rank that shares the seed keeps the same positions,
// which is what lets an all-reduce sum the values.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "codec/stochastic_keys.hpp"
#include "common/byte_io.hpp"
#include "common/float_values.hpp"
#include "common/spec_params.hpp"
#include "gradcodec/error.hpp"
#include "quant/value_coder.hpp"
#include "select/random_positions.hpp"
#include "select/topk.hpp"

namespace gradcodec {
namespace {

struct RandomkParams {
    double density = 0.01;
    std::optional<std::uint64_t> seed;
    bool unbiased = false;
    ValueCoderParams values;
};

RandomkParams compile(const CodecSpec& spec) {
    SpecParams p(spec);
    RandomkParams out;
    out.density = p.number("density", 0.01, 1e-12, 1.0);
    if (!(out.density > 0)) p.invalid("density", "a number in (0, 1]");
    out.seed = parse_seed(p);
    out.unbiased = p.choice("scale", "none", {"none", "unbiased"}) == "unbiased";
    out.values = parse_value_coder(p, ValueFormat::f16);
    p.finish();
    return out;
}

// n/k in binary64: the factor that makes the kept values an unbiased estimate.
double unbiased_factor(std::uint64_t n, std::uint64_t k) {
    return static_cast<double>(n) / static_cast<double>(k);
}

void encode(const RandomkParams& params, const TensorMeta& meta, std::span<const std::byte> data,
            const EncodeOptions& options, ByteOutput& out) {
    encode_float32(meta, data, [&](std::span<const float> x) {
        if (!options.allow_nonfinite) require_finite(meta, x);
        const std::uint64_t n = x.size();
        const std::uint64_t k = topk_count(n, params.density);
        const std::uint64_t seed = record_seed(params.seed);
        const ScratchVector<std::uint64_t> positions = draw_random_positions(n, k, seed);
        ScratchVector<float> kept(k);
        const double factor = params.unbiased ? unbiased_factor(n, k) : 1.0;
        const float limit = dtype_value_limit(meta.dtype);
        for (std::uint64_t i = 0; i < k; ++i) {
            const float v = x[positions[i]];
            kept[i] = params.unbiased ? static_cast<float>(static_cast<double>(v) * factor) : v;
            if (std::isfinite(v) && !(std::fabs(kept[i]) <= limit)) {
                fail(ErrorKind::bad_input, meta.name + ": element " + std::to_string(positions[i]) +
                                               " scaled by n/k is beyond the range of " +
                                               std::string(dtype_name(meta.dtype)) +
                                               "; use scale=none");
            }
        }
        ByteWriter w(out);
        w.u64(seed);
        w.u64(k);
        w.u8(params.unbiased ? 1 : 0);
        encode_values(params.values, kept, meta, options, w, limit);
    });
}

struct Header {
    std::uint64_t seed, k;
};

Header read_header(ByteReader& r, std::uint64_t n) {
    Header h{r.u64(), r.u64()};
    if (h.k > n)
        r.damaged("kept count " + std::to_string(h.k) + " exceeds the tensor's " +
                  std::to_string(n) + " elements");
    if (r.u8() > 1) r.damaged("scale flag above 1");
    return h;
}

void decode(const TensorMeta& meta, std::span<const std::uint8_t> payload,
            std::span<std::byte> out) {
    const std::uint64_t n = meta.element_count();
    ByteReader r(payload, meta.name, "randomk payload");
    const Header h = read_header(r, n);
    // k <= n: the kept values and the positions take no more memory than the output itself.
    ScratchVector<float> kept(h.k);
    decode_values(r, kept);
    r.expect_end();
    const ScratchVector<std::uint64_t> positions = draw_random_positions(n, h.k, h.seed);
    decode_float32(meta, out, [&](std::span<float> x) {
        std::fill(x.begin(), x.end(), 0.0f);
        for (std::uint64_t i = 0; i < h.k; ++i) x[positions[i]] = kept[i];
    });
}

PayloadStats describe(const TensorMeta& meta, std::span<const std::uint8_t> payload) {
    ByteReader r(payload, meta.name, "randomk payload");
    const Header h = read_header(r, meta.element_count());
    PayloadStats s;
    s.has_bit_split = true;
    s.position_bits = 64;  // the seed stands for the positions
    s.value_bits = value_section_bits(r, h.k);
    r.expect_end();
    s.has_carried = true;
    s.carried = h.k;
    return s;
}

std::uint64_t payload_bound(const RandomkParams& params, const TensorMeta& meta,
                            const EncodeOptions& options) {
    const std::uint64_t k = topk_count(meta.element_count(), params.density);
    return 17 + value_section_bound(params.values, k, options.allow_nonfinite);
}

}  // namespace

const CodecDef kRandomkCodec = codec_row<compile, encode, payload_bound>({
    .name = "randomk",
    .id = kCodecRandomk,
    .payload = "randomk",
    .summary = "k positions drawn from a seed: density=D, seed=S, scale=none|unbiased, "
               "values=f16|f32|bf16|rangeq",
    .defaults = "density=0.01, scale=none, values=f16",
    .filter_ok = true,
    .draws_seed = true,
    .knob = {KnobKind::density, "density", {}, false},
    .decode = decode,
    .describe = describe,
});

}  // namespace gradcodec
