// lowrank: PowerSGD's factors P and Q of the tensor seen as a matrix (the first dimension by
// the rest), each stored as a value section (format-spec/codec-lowrank.md). Tensors that are
// not matrices, and matrices the factors would not make smaller, go to the fallback codec the
// spec names, whose payload the record then carries whole.
#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "codec/stochastic_keys.hpp"
#include "common/byte_io.hpp"
#include "common/float_values.hpp"
#include "common/seeded_random.hpp"
#include "common/spec_params.hpp"
#include "gradcodec/error.hpp"
#include "quant/value_coder.hpp"
#include "transform/low_rank.hpp"

namespace gradcodec {
namespace {

constexpr unsigned kMaxRank = 256;
constexpr unsigned kMaxIterations = 64;

enum class Form : std::uint8_t { factors = 0, fallback = 1 };

struct LowrankParams {
    unsigned rank = 4;
    unsigned iterations = 3;
    std::optional<std::uint64_t> seed;
    ValueCoderParams values;
    const CodecDef* fallback = nullptr;
    std::any fallback_params;
};

LowrankParams compile(const CodecSpec& spec) {
    SpecParams p(spec);
    LowrankParams out;
    out.rank = static_cast<unsigned>(p.integer("rank", 4, 1, kMaxRank));
    out.iterations = static_cast<unsigned>(p.integer("iters", 3, 1, kMaxIterations));
    out.seed = parse_seed(p);
    out.values = parse_value_coder(p, ValueFormat::f16);
    p.has("fallback");
    const std::string fallback{spec.get("fallback").value_or("lossless")};
    out.fallback = &codec_by_name(fallback);
    if (out.fallback->id == kCodecLowrank) p.invalid("fallback", "a codec other than lowrank");
    out.fallback_params = out.fallback->compile(CodecSpec{fallback, {}});
    p.finish();
    return out;
}

struct MatrixShape {
    std::uint64_t rows = 0, cols = 0;
};

// The tensor as a matrix: its first dimension by the product of the others.
std::optional<MatrixShape> matrix_of(const TensorMeta& meta) {
    if (meta.shape.size() < 2 || meta.shape[0] == 0) return std::nullopt;
    const std::uint64_t n = meta.element_count();
    if (n == 0) return std::nullopt;
    return MatrixShape{meta.shape[0], n / meta.shape[0]};
}

// Factors only where they are smaller than the matrix: rank · (rows + cols) < rows · cols.
bool factors_pay(const MatrixShape& m, unsigned rank) {
    const Unsigned128 factor_values =
        static_cast<Unsigned128>(rank) * (static_cast<Unsigned128>(m.rows) + m.cols);
    return factor_values < static_cast<Unsigned128>(m.rows) * m.cols;
}

bool is_half(DType dtype) {
    return dtype == DType::f16 || dtype == DType::bf16;
}

void require_finite_factors(const TensorMeta& meta, const LowRankFactors& f) {
    for (const auto* factor : {&f.p, &f.q}) {
        for (const float v : *factor) {
            if (!std::isfinite(v)) {
                fail(ErrorKind::bad_input, meta.name +
                                               ": a low-rank factor overflows binary32 (the "
                                               "tensor's values are too large for lowrank)");
            }
        }
    }
}

std::uint64_t largest_magnitude_beyond(std::span<const float> values, float limit) {
    for (std::uint64_t i = 0; i < values.size(); ++i)
        if (!(std::fabs(values[i]) <= limit)) return i;
    return values.size();
}

// Reads both factors' value sections (to the payload's end) and writes P · Qᵀ to `out`.
void decode_factors(ByteReader& r, const MatrixShape& m, unsigned rank, std::span<float> out) {
    // rank · (rows + cols) < rows · cols: the factors take less memory than the output.
    ScratchVector<float> p(m.rows * rank), q(m.cols * rank);
    decode_values(r, p);
    decode_values(r, q);
    r.expect_end();
    low_rank_product(p, q, m.rows, m.cols, rank, out);
}

struct Header {
    Form form;
    unsigned rank = 0;
    std::uint16_t fallback_id = 0;
};

Header read_header(ByteReader& r, const TensorMeta& meta) {
    Header h{static_cast<Form>(r.u8())};
    if (h.form == Form::fallback) {
        h.fallback_id = r.u16();
        if (h.fallback_id == kCodecLowrank) r.damaged("a lowrank fallback to lowrank");
        return h;
    }
    if (h.form != Form::factors) r.damaged("unknown form " + std::to_string(int(h.form)));
    const auto matrix = matrix_of(meta);
    h.rank = r.u32();
    if (h.rank < 1 || h.rank > kMaxRank)
        r.damaged("rank " + std::to_string(h.rank) + " outside 1.." + std::to_string(kMaxRank));
    if (!matrix || !factors_pay(*matrix, h.rank))
        r.damaged("factors of rank " + std::to_string(h.rank) + " for a tensor they do not shrink");
    r.u64();  // the seed
    r.u8();   // the iterations
    return h;
}

// A half tensor's decoder refuses a product beyond the dtype's range, so the encoder checks
// the product of the factors as stored (rounded by the value coder) before it hands them out.
void require_product_fits(const TensorMeta& meta, const MatrixShape& m,
                          std::span<const std::uint8_t> payload) {
    ScratchVector<float> product(m.rows * m.cols);
    ByteReader r(payload, meta.name, "lowrank payload");
    const unsigned rank = read_header(r, meta).rank;
    decode_factors(r, m, rank, product);
    const std::uint64_t at = largest_magnitude_beyond(product, dtype_value_limit(meta.dtype));
    if (at != product.size()) {
        fail(ErrorKind::bad_input, meta.name + ": the rank-" + std::to_string(rank) +
                                       " approximation of element " + std::to_string(at) +
                                       " is beyond the range of " +
                                       std::string(dtype_name(meta.dtype)));
    }
}

void encode(const LowrankParams& params, const TensorMeta& meta, std::span<const std::byte> data,
            const EncodeOptions& options, ByteOutput& out) {
    const auto matrix = matrix_of(meta);
    ByteWriter w(out);
    if (!matrix || !factors_pay(*matrix, params.rank)) {
        w.u8(static_cast<std::uint8_t>(Form::fallback));
        w.u16(params.fallback->id);
        params.fallback->encode(params.fallback_params, meta, data, options, out);
        return;
    }
    encode_float32(meta, data, [&](std::span<const float> x) {
        require_finite(meta, x);
        const std::uint64_t seed = record_seed(params.seed);
        const LowRankFactors f =
            low_rank_factors(x, matrix->rows, matrix->cols, params.rank, params.iterations, seed);
        require_finite_factors(meta, f);
        const std::size_t start = out.size();
        w.u8(static_cast<std::uint8_t>(Form::factors));
        w.u32(params.rank);
        w.u64(seed);
        w.u8(static_cast<std::uint8_t>(params.iterations));
        const EncodeOptions finite_only{false, options.threads, options.execution};
        encode_values(params.values, f.p, meta, finite_only, w);
        encode_values(params.values, f.q, meta, finite_only, w);
        if (is_half(meta.dtype))
            require_product_fits(meta, *matrix, std::span(out.data() + start, out.size() - start));
    });
}

void decode(const TensorMeta& meta, std::span<const std::uint8_t> payload,
            std::span<std::byte> out) {
    ByteReader r(payload, meta.name, "lowrank payload");
    const Header h = read_header(r, meta);
    if (h.form == Form::fallback) {
        decode_payload(h.fallback_id, meta, payload.subspan(3), out);
        return;
    }
    const MatrixShape m = *matrix_of(meta);
    // rank · (rows + cols) < rows · cols: the factors take less memory than the output.
    ScratchVector<float> p(m.rows * h.rank), q(m.cols * h.rank);
    decode_values(r, p);
    decode_values(r, q);
    r.expect_end();
    decode_float32(meta, out,
                   [&](std::span<float> x) { low_rank_product(p, q, m.rows, m.cols, h.rank, x); });
}

PayloadStats describe(const TensorMeta& meta, std::span<const std::uint8_t> payload) {
    ByteReader r(payload, meta.name, "lowrank payload");
    const Header h = read_header(r, meta);
    if (h.form == Form::fallback)
        return codec_by_id(h.fallback_id, meta).describe(meta, payload.subspan(3));
    const MatrixShape m = *matrix_of(meta);
    PayloadStats s;
    s.has_bit_split = true;
    s.value_bits = value_section_bits(r, m.rows * h.rank);
    s.value_bits += value_section_bits(r, m.cols * h.rank);
    r.expect_end();
    s.has_carried = true;
    s.carried = (m.rows + m.cols) * h.rank;
    return s;
}

std::uint64_t payload_bound(const LowrankParams& params, const TensorMeta& meta,
                            const EncodeOptions& options) {
    const auto matrix = matrix_of(meta);
    if (!matrix || !factors_pay(*matrix, params.rank))
        return 3 + params.fallback->payload_bound(params.fallback_params, meta, options);
    return 14 +
           value_section_bound(params.values, matrix->rows * params.rank, options.allow_nonfinite) +
           value_section_bound(params.values, matrix->cols * params.rank, options.allow_nonfinite);
}

// --target's ladder of ranks.
constexpr std::array<int, 14> kRankLadder{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128};

}  // namespace

const CodecDef kLowrankCodec = codec_row<compile, encode, payload_bound>({
    .name = "lowrank",
    .id = kCodecLowrank,
    .payload = "lowrank",
    .summary = "PowerSGD factors of the tensor as a matrix: rank=R, iters=N, seed=S, "
               "values=f16|f32|bf16|rangeq, fallback=CODEC for tensors that are no matrix",
    .defaults = "rank=4, iters=3, values=f16, fallback=lossless",
    .draws_seed = true,
    .knob = {KnobKind::ladder, "rank", kRankLadder, false},
    .decode = decode,
    .describe = describe,
});

}  // namespace gradcodec
