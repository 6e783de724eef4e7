// dct: frequency sparsification over an orthonormal DCT-II per chunk. Coefficients are real
// and the transform keeps energy, so they rank by |coefficient| exactly like a top-k of the
// values; small chunks localise the transform the way DeMo does.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "codec/frequency_codec.hpp"
#include "codec/group_codecs.hpp"
#include "common/parallel.hpp"
#include "common/scratch.hpp"
#include "index/position_coder.hpp"
#include "transform/aligned_array.hpp"
#include "transform/fft_backend.hpp"

namespace gradcodec {
namespace {

// Coefficient k of chunk c is coefficient c·chunk + k of the tensor: the same index space
// as the values, n entries.
template <class Transform>
void per_chunk(const ChunkLayout& c, const float* in, float* out, Transform transform) {
    // Chunks are independent: with several threads each takes whole blocks of them.
    constexpr std::uint64_t kBlockValues = 1 << 16;
    parallel_pieces(
        c.full, std::max<std::uint64_t>(1, kBlockValues / c.chunk),
        [&](std::uint64_t first, std::uint64_t count) {
            const std::uint64_t at = first * c.chunk;
            transform(TransformBatch{c.chunk, count, c.chunk, c.chunk}, in + at, out + at);
        });
    if (c.tail != 0) {
        const std::uint64_t at = c.full * c.chunk;
        transform(TransformBatch{c.tail, 1, c.tail, c.tail}, in + at, out + at);
    }
}

void encode_floats(const FrequencyParams& params, const TensorMeta& meta, std::span<const float> x,
                   const EncodeOptions& options, ByteOutput& out) {
    const ChunkLayout chunks(x.size(), params.chunk);
    const FftBackend& fft = default_fft_backend();
    AlignedArray<float> coefficients(x.size());
    per_chunk(chunks, x.data(), coefficients.data(), fft.dct2);
    // Every coefficient weighs one scalar: a plain top-k of |coefficient|.
    const ScratchVector<std::uint64_t> kept =
        select_coefficients(params.selector, coefficients.span(), params.density);
    ScratchVector<float> values(kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i) values[i] = coefficients[kept[i]];
    write_frequency_payload(params, meta, x, kept, x.size(), values, options, "DCT", out);
}

FrequencyParams parse_params(const CodecSpec& spec) {
    return parse_frequency_params(spec, kDctDefaultChunk);
}

void encode(const FrequencyParams& params, const TensorMeta& meta, std::span<const std::byte> data,
            const EncodeOptions& options, ByteOutput& out) {
    encode_float32(meta, data,
                   [&](std::span<const float> x) { encode_floats(params, meta, x, options, out); });
}

void decode(const TensorMeta& meta, std::span<const std::uint8_t> payload,
            std::span<std::byte> out) {
    ByteReader r(payload, meta.name, "dct payload");
    const FrequencyHeader h = read_frequency_header(r);
    const std::uint64_t n = out.size() / dtype_size(meta.dtype);
    ScratchVector<std::uint64_t> kept;
    decode_positions_into(r, n, kept);
    ScratchVector<float> values(kept.size());
    decode_values(r, values);
    r.expect_end();

    decode_float32(meta, out, [&](std::span<float> y) {
        AlignedArray<float> coefficients(n);
        std::memset(coefficients.data(), 0, sizeof(float) * n);
        for (std::size_t i = 0; i < kept.size(); ++i) coefficients[kept[i]] = values[i];
        per_chunk(ChunkLayout(n, h.chunk), coefficients.data(), y.data(),
                  default_fft_backend().dct3);
    });
}

PayloadStats describe(const TensorMeta& meta, std::span<const std::uint8_t> payload) {
    return describe_frequency_payload(
        meta, payload, "dct", [](const ChunkLayout& c) { return c.n; },
        [](const ChunkLayout&, std::span<const std::uint64_t> kept) { return kept.size(); });
}

std::uint64_t payload_bound(const FrequencyParams& params, const TensorMeta& meta,
                            const EncodeOptions& options) {
    return frequency_payload_bound(params, meta.element_count(), meta.element_count(), options);
}

}  // namespace

namespace {

void transform_chunks(const FrequencyParams& params, std::span<const float> x,
                      AlignedArray<float>& coefficients) {
    per_chunk(ChunkLayout(x.size(), params.chunk), x.data(), coefficients.data(),
              default_fft_backend().dct2);
}

}  // namespace

void dct_group_scores(const CodecSpec& spec, std::span<const float> x, const ScoreVisitor& visit) {
    AlignedArray<float> c(x.size());
    transform_chunks(parse_frequency_params(spec, kDctDefaultChunk), x, c);
    visit(std::span<const float>(c.data(), x.size()), {});
}

std::vector<std::uint8_t> encode_dct_with_cut(const CodecSpec& spec, const TensorMeta& meta,
                                              std::span<const float> x, const GroupCut& cut,
                                              std::uint64_t tie_budget,
                                              const EncodeOptions& options, std::uint64_t& spent) {
    const FrequencyParams params = parse_frequency_params(spec, kDctDefaultChunk);
    require_finite(meta, x);
    AlignedArray<float> c(x.size());
    transform_chunks(params, x, c);
    const std::span<const float> coefficients(c.data(), x.size());
    const ScratchVector<std::uint64_t> kept =
        select_with_cut(coefficients, {cut.bits, tie_budget}, {}, spent).indices;
    ScratchVector<float> values(kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i) values[i] = coefficients[kept[i]];
    return written_bytes([&](ByteOutput& out) {
        write_frequency_payload(params, meta, x, kept, x.size(), values, options, "DCT", out);
    });
}

const CodecDef kDctCodec = codec_row<parse_params, encode, payload_bound>({
    .name = "dct",
    .id = kCodecDct,
    .payload = "dct",
    .summary =
        "orthonormal DCT-II sparsification: density=D, chunk=C, bits=N or values=f32|f16|bf16, "
        "select=topk|sidco|dgc",
    .defaults = "density=0.15, chunk=64, select=topk, values=rangeq, bits=10",
    .group = GroupFamily::dct,
    .knob = {KnobKind::density, "density", {}, false},
    .decode = decode,
    .describe = describe,
});

}  // namespace gradcodec
