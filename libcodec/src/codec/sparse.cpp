// The threshold-sparsified codecs topk, threshold, dgc and sidco: one payload layout (codec id
// 4, format-spec/codec-sparse.md): a header, a position section and a value section, each
// section optionally one zstd frame. Decoding needs none of the selector's parameters.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "codec/group_codecs.hpp"
#include "codec/piece_coding.hpp"
#include "codec/sparse_kept.hpp"
#include "codec/sparse_params.hpp"
#include "codec/sparse_payload.hpp"
#include "codec/zstd_section.hpp"
#include "common/byte_io.hpp"
#include "common/checked_size.hpp"
#include "common/float_values.hpp"
#include "common/parallel.hpp"
#include "common/scratch.hpp"
#include "index/position_coder.hpp"
#include "select/cut.hpp"
#include "select/threshold.hpp"
#include "select/topk.hpp"

namespace gradcodec {
namespace {

// A vectorised screen (SSE2 is the x86-64 baseline); require_finite then names the first
// offending element. Magnitude patterns are < 2^31, so a signed compare orders them.
bool all_finite_serial(std::span<const float> x) {
    std::size_t i = 0;
    std::uint32_t bad = 0;
#if defined(__SSE2__)
    const __m128i abs_mask = _mm_set1_epi32(0x7fffffff);
    const __m128i largest = _mm_set1_epi32(0x7f7fffff);
    __m128i any = _mm_setzero_si128();
    for (; i + 8 <= x.size(); i += 8) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x.data() + i));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x.data() + i + 4));
        any = _mm_or_si128(any, _mm_cmpgt_epi32(_mm_and_si128(a, abs_mask), largest));
        any = _mm_or_si128(any, _mm_cmpgt_epi32(_mm_and_si128(b, abs_mask), largest));
    }
    bad = static_cast<std::uint32_t>(_mm_movemask_epi8(any));
#endif
    for (; i < x.size(); ++i) {
        std::uint32_t b;
        std::memcpy(&b, &x[i], 4);
        bad |= (b & 0x7f800000u) == 0x7f800000u ? 1u : 0u;
    }
    return bad == 0;
}

bool all_finite(std::span<const float> x) {
    constexpr std::size_t kPiece = std::size_t{1} << 20;
    ScratchVector<char> finite(piece_count(x.size(), kPiece));
    parallel_pieces(x.size(), kPiece, [&](std::size_t first, std::size_t size) {
        finite[first / kPiece] = all_finite_serial(x.subspan(first, size)) ? 1 : 0;
    });
    return std::all_of(finite.begin(), finite.end(), [](char f) { return f != 0; });
}

struct Chosen {
    Selection selection;
    std::uint8_t dist = 0;
    std::uint8_t stages = 0;
    double target = -1;
};

// The k a top-k keeps of n values: exactly that many, ties broken by index.
std::uint64_t topk_k(const SparseParams& p, std::uint64_t n) {
    return p.count ? std::min<std::uint64_t>(*p.count, n) : topk_count(n, p.density);
}

// The density a top-k's header states: the one asked for, or k / n for a count.
double topk_target(const SparseParams& p, std::uint64_t n) {
    if (!p.count) return p.density;
    return n == 0 ? 1.0 : static_cast<double>(topk_k(p, n)) / static_cast<double>(n);
}

Chosen run_selector(const SparseParams& p, std::span<const float> x) {
    Chosen c;
    c.target = p.density;
    switch (p.selector) {
        case Selector::topk: {
            c.target = topk_target(p, x.size());
            c.selection = select_topk(x, topk_k(p, x.size()));
            break;
        }
        case Selector::threshold:
            c.selection = select_above(x, p.threshold);
            break;
        case Selector::dgc:
            c.selection = select_dgc(x, p.dgc);
            break;
        case Selector::sidco: {
            const SidcoThreshold t = sidco_threshold(x, p.sidco);
            c.selection = select_above(x, t.threshold);
            c.dist = static_cast<std::uint8_t>(p.sidco.dist);
            c.stages = static_cast<std::uint8_t>(t.stages);
            break;
        }
    }
    return c;
}

void encode_sparse(const SparseParams& p, const TensorMeta& meta, std::span<const float> x,
                   const EncodeOptions& options, ByteOutput& out) {
    // Top-k ranks NaN and infinities above every number, so when there are any it keeps them:
    // checking the kept values spares a pass over x. The other selectors need the pass.
    const bool check_kept = p.selector == Selector::topk;
    if (!options.allow_nonfinite && !check_kept && !all_finite(x)) require_finite(meta, x);
    Chosen c = run_selector(p, x);
    const auto& idx = c.selection.indices;
    ScratchVector<float> values = std::move(c.selection.values);
    if (values.size() != idx.size()) {
        values.resize(idx.size());
        for (std::size_t i = 0; i < idx.size(); ++i) values[i] = x[idx[i]];
    }
    if (!options.allow_nonfinite && check_kept &&
        (!all_finite(values) || (values.empty() && !all_finite(x)))) {
        require_finite(meta, x);
    }
    write_sparse_payload(p, meta, {c.dist, c.stages, c.target, c.selection.threshold}, idx, values,
                         x.size(), options, out);
}

struct Header {
    Selector selector;
    std::uint8_t dist;
    std::uint8_t stages;
    std::uint8_t flags;
    double target;
    float threshold;
    std::uint64_t count;
};

Header read_header(ByteReader& r, std::uint64_t n) {
    Header h{};
    const std::uint8_t sel = r.u8();
    if (sel < 1 || sel > 4) r.damaged("unknown selector " + std::to_string(sel));
    h.selector = static_cast<Selector>(sel);
    h.dist = r.u8();
    h.stages = r.u8();
    const bool sidco = h.selector == Selector::sidco;
    if (sidco ? (h.dist < 1 || h.dist > 3) : h.dist != 0)
        r.damaged("invalid distribution " + std::to_string(h.dist));
    if (sidco ? (h.stages < 1 || h.stages > kSidcoMaxStages) : h.stages != 0) {
        r.damaged("invalid stage count " + std::to_string(h.stages));
    }
    h.flags = r.u8();
    if ((h.flags & ~(kSparseFlagPositionsZstd | kSparseFlagValuesZstd)) != 0) {
        r.damaged("unknown flags " + std::to_string(h.flags));
    }
    h.target = r.f64();
    const bool no_target = h.selector == Selector::threshold;
    if (no_target ? h.target != -1.0 : !(h.target > 0 && h.target <= 1)) {
        r.damaged("invalid target density");
    }
    h.threshold = r.f32();
    if (!(h.threshold >= 0)) r.damaged("invalid threshold");
    h.count = r.u64();
    if (h.count > n) {
        r.damaged("kept count " + std::to_string(h.count) + " exceeds the element count " +
                  std::to_string(n));
    }
    return h;
}

// One section's bytes, decompressed when its flag says so, never beyond `max_size`.
ScratchVector<std::uint8_t> read_section(ByteReader& r, bool compressed, std::uint64_t max_size,
                                         const char* what) {
    const std::uint64_t length = r.u64();
    r.require(length, 1, what);
    const auto bytes = r.bytes(length);
    if (compressed) return zstd_decompress_section(bytes, max_size, r);
    if (length > max_size) r.damaged(std::string(what) + " exceeds its size limit");
    return {bytes.begin(), bytes.end()};
}

void decode(const TensorMeta& meta, std::span<const std::uint8_t> payload,
            std::span<std::byte> out) {
    const SparseKept kept(meta, payload);
    decode_float32(meta, out, [&](std::span<float> x) {
        std::fill(x.begin(), x.end(), 0.0f);
        kept.visit([&](std::span<const std::uint64_t> positions, std::span<const float> values) {
            for (std::size_t i = 0; i < positions.size(); ++i) x[positions[i]] = values[i];
        });
    });
}

PayloadStats describe(const TensorMeta& meta, std::span<const std::uint8_t> payload) {
    const std::uint64_t n = meta.element_count();
    ByteReader r(payload, meta.name, "sparse payload");
    const Header h = read_header(r, n);
    PayloadStats s;
    s.has_bit_split = true;
    const std::uint64_t position_bytes = r.u64();
    r.bytes(position_bytes);
    const std::uint64_t value_bytes = r.u64();
    r.bytes(value_bytes);
    r.expect_end();
    s.position_bits = 8 * position_bytes;
    s.value_bits = 8 * value_bytes;
    s.target_density = h.target;
    s.has_carried = true;
    s.carried = h.count;
    return s;
}

void encode(const SparseParams& p, const TensorMeta& meta, std::span<const std::byte> data,
            const EncodeOptions& options, ByteOutput& out) {
    encode_float32(meta, data,
                   [&](std::span<const float> x) { encode_sparse(p, meta, x, options, out); });
}

// Header (selector, dist, stages, flags, f64 target, f32 threshold, u64 count), then two
// u64-prefixed sections, each zstd-compressed only when that is smaller. A top-k's values
// are its k; the other selectors may keep every value. (A caller that encodes into a buffer of
// this size, as the CLI does for every tensor, then sets aside about k values, not n.)
std::uint64_t payload_bound(const SparseParams& p, const TensorMeta& meta,
                            const EncodeOptions& options) {
    const std::uint64_t n = meta.element_count();
    const std::uint64_t kept = p.selector == Selector::topk ? topk_k(p, n) : n;
    return size_add(24 + 8, position_section_bound(n), 8,
                    value_section_bound(p.values, kept, options.allow_nonfinite));
}

}  // namespace

SparseKeptSize sparse_kept_size(const TensorMeta& meta, std::span<const std::uint8_t> payload) {
    const std::uint64_t n = meta.element_count();
    ByteReader r(payload, meta.name, "sparse payload");
    const Header h = read_header(r, n);
    const auto section_size = [&](bool compressed, std::uint64_t max_size, const char* what) {
        const std::uint64_t length = r.u64();
        r.require(length, 1, what);
        const auto bytes = r.bytes(length);
        if (compressed) return zstd_section_size(bytes, max_size, r);
        if (length > max_size) r.damaged(std::string(what) + " exceeds its size limit");
        return length;
    };
    SparseKeptSize size;
    size.count = h.count;
    size.position_section = section_size(h.flags & kSparseFlagPositionsZstd,
                                         sparse_position_limit(n), "position section");
    size.value_section =
        section_size(h.flags & kSparseFlagValuesZstd, sparse_value_limit(h.count), "value section");
    r.expect_end();
    return size;
}

SparseKept::SparseKept(const TensorMeta& meta, std::span<const std::uint8_t> payload)
    : meta_(meta) {
    const std::uint64_t n = meta.element_count();
    ByteReader r(payload, meta.name, "sparse payload");
    const Header h = read_header(r, n);
    count_ = h.count;
    positions_ = read_section(r, h.flags & kSparseFlagPositionsZstd, sparse_position_limit(n),
                              "position section");
    const auto value_bytes = read_section(r, h.flags & kSparseFlagValuesZstd,
                                          sparse_value_limit(h.count), "value section");
    r.expect_end();

    ByteReader vr(value_bytes, meta.name, "sparse payload value section");
    values_.resize(h.count);  // count <= n: at most the tensor's size
    decode_values(vr, values_);
    vr.expect_end();
}

void SparseKept::visit(const Sink& sink) const {
    const std::uint64_t n = meta_.element_count();
    ByteReader pr(positions_, meta_.name, "sparse payload position section");
    std::uint64_t next = 0;
    const std::uint64_t k = decode_positions(pr, n, [&](std::span<const std::uint64_t> piece) {
        if (piece.size() > count_ - next) pr.damaged("more positions than the kept count");
        sink(piece, std::span<const float>(values_).subspan(next, piece.size()));
        next += piece.size();
    });
    if (k != count_ || next != count_) {
        pr.damaged("position count " + std::to_string(k) + " differs from the kept count " +
                   std::to_string(count_));
    }
    pr.expect_end();
}

void sparse_group_scores(std::span<const float> x, const ScoreVisitor& visit) {
    visit(x, {});
}

std::vector<std::uint8_t> encode_sparse_with_cut(const CodecSpec& spec, const TensorMeta& meta,
                                                 std::span<const float> x, const GroupCut& cut,
                                                 std::uint64_t tie_budget,
                                                 const EncodeOptions& options,
                                                 std::uint64_t& spent) {
    const SparseParams p = parse_sparse_params(spec);
    if (!options.allow_nonfinite && !all_finite(x)) require_finite(meta, x);
    const Selection s = select_with_cut(x, {cut.bits, tie_budget}, {}, spent);
    ScratchVector<float> values(s.indices.size());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = x[s.indices[i]];
    const bool sidco = p.selector == Selector::sidco;
    const SparseChoice choice{sidco ? static_cast<std::uint8_t>(p.sidco.dist) : std::uint8_t{0},
                              sidco ? std::max<std::uint8_t>(cut.stages, 1) : std::uint8_t{0},
                              p.selector == Selector::threshold ? -1.0 : cut.target_density,
                              cut.threshold};
    return written_bytes([&](ByteOutput& out) {
        write_sparse_payload(p, meta, choice, s.indices, values, x.size(), options, out);
    });
}

namespace {

// A top-k in pieces: the survey is one pass that keeps candidates (TopkStream) and, once it
// has seen the last piece, writes the whole payload; the first encoded piece then carries it
// and the others carry nothing. The same bytes as encode, and the same errors: the first
// non-finite value is always a candidate, so it is found where the whole encode finds it.
struct TopkSurvey {
    SparseParams params;
    EncodeOptions options;
    TopkStream stream;
    std::vector<std::uint8_t> payload;  // once every piece has been seen
};

void write_when_complete(TopkSurvey& s, const TensorMeta& meta, std::uint64_t seen) {
    const std::uint64_t n = meta.element_count();
    if (seen != n) return;
    const Selection selection = s.stream.finish();
    const SparseChoice choice{0, 0, topk_target(s.params, n), selection.threshold};
    s.payload = written_bytes([&](ByteOutput& out) {
        write_sparse_payload(s.params, meta, choice, selection.indices, selection.values, n,
                             s.options, out);
    });
}

std::any begin_topk_survey(const std::any& compiled, const TensorMeta& meta,
                           const EncodeOptions& options) {
    const auto& p = std::any_cast<const SparseParams&>(compiled);
    TopkSurvey s{p, options, TopkStream(topk_k(p, meta.element_count())), {}};
    write_when_complete(s, meta, 0);
    return s;
}

void survey_topk_piece(std::any& survey, const TensorMeta& meta, std::uint64_t first,
                       std::span<const std::byte> data) {
    auto& s = std::any_cast<TopkSurvey&>(survey);
    const Float32Values values(meta.dtype, data);
    const std::span<const float> x = values.values();
    const std::optional<std::uint64_t> nonfinite = s.stream.add(x, first);
    // With k == 0 nothing is a candidate, and the whole encode checks every value.
    const bool keeps_none = topk_k(s.params, meta.element_count()) == 0;
    if (!s.options.allow_nonfinite && (nonfinite || keeps_none)) require_finite(meta, x, first);
    write_when_complete(s, meta, first + x.size());
}

std::uint64_t topk_payload_size(const std::any&, const TensorMeta&, const std::any* survey) {
    return std::any_cast<const TopkSurvey&>(*survey).payload.size();
}

void encode_topk_piece(const std::any&, const TensorMeta&, std::uint64_t first,
                       std::span<const std::byte>, const std::any* survey, ByteOutput& out) {
    if (first != 0) return;
    const std::vector<std::uint8_t>& payload = std::any_cast<const TopkSurvey&>(*survey).payload;
    std::copy(payload.begin(), payload.end(), out.extend(payload.size()));
}

// --target's density knob, shared by the selectors that take density=.
constexpr CodecKnob kDensityKnob{KnobKind::density, "density", {}, false};

}  // namespace

// Achieved count and threshold are in the header; inspect reads them via describe.
const CodecDef kTopkCodec = codec_row<parse_sparse_params, encode, payload_bound>({
    .name = "topk",
    .id = kCodecSparse,
    .payload = "sparse",
    .summary = "exact top-k by magnitude: density=D or count=K, values=f16|f32|bf16|rangeq",
    .defaults = "density=0.01, values=f16",
    .filter_ok = true,
    .group = GroupFamily::sparse,
    .knob = kDensityKnob,
    .pieces = &kTopkPieces,
    .decode = decode,
    .describe = describe,
});
const PieceCoding kTopkPieces{begin_topk_survey, survey_topk_piece, topk_payload_size,
                              encode_topk_piece, 1};
const CodecDef kThresholdCodec = codec_row<parse_sparse_params, encode, payload_bound>({
    .name = "threshold",
    .id = kCodecSparse,
    .payload = "sparse",
    .summary = "keep |x| > value=T (required), values=f16|f32|bf16|rangeq",
    .defaults = "values=f16",
    .filter_ok = true,
    .group = GroupFamily::sparse,
    .decode = decode,
    .describe = describe,
});
const CodecDef kDgcCodec = codec_row<parse_sparse_params, encode, payload_bound>({
    .name = "dgc",
    .id = kCodecSparse,
    .payload = "sparse",
    .summary = "DGC threshold from a sample: density=D, sample=S, seed=N",
    .defaults = "density=0.01, sample=0.01, seed=0, values=f16",
    .filter_ok = true,
    .group = GroupFamily::sparse,
    .knob = kDensityKnob,
    .decode = decode,
    .describe = describe,
});
const CodecDef kSidcoCodec = codec_row<parse_sparse_params, encode, payload_bound>({
    .name = "sidco",
    .id = kCodecSparse,
    .payload = "sparse",
    .summary = "SIDCo fitted threshold: dist=exp|gpareto|gamma, density=D, stages=auto|1..16",
    .defaults = "dist=exp, density=0.01, stages=auto, values=f16",
    .filter_ok = true,
    .group = GroupFamily::sparse,
    .knob = kDensityKnob,
    .decode = decode,
    .describe = describe,
});

}  // namespace gradcodec
