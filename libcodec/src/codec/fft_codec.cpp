// fft: SuperNeurons' sparsification in the frequency domain. Each chunk of the tensor goes
// through a real-to-complex FFT; the bins of largest magnitude across all chunks are kept
// until they carry about density·n real scalars; decode zero-fills the rest and inverts.
#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <string>

#include "codec/codec_def.hpp"
#include "codec/fft_candidates.hpp"
#include "codec/fft_spectrum.hpp"
#include "codec/float_codec.hpp"
#include "codec/frequency_codec.hpp"
#include "codec/group_codecs.hpp"
#include "common/checked_size.hpp"
#include "common/parallel.hpp"
#include "common/scratch.hpp"
#include "index/position_coder.hpp"
#include "transform/aligned_array.hpp"
#include "transform/fft_backend.hpp"

namespace gradcodec {
namespace {

// `count` chunks of `bins` bins, `stride` bins apart.
void score_bins(const std::complex<float>* spectrum, std::uint64_t stride, std::uint64_t bins,
                std::uint64_t count, float scale, float* scores) {
    for (std::uint64_t c = 0; c < count; ++c) {
        score_chunk(spectrum + c * stride, bins, scale, scores + c * bins);
    }
}

// Transforms every chunk and scores every bin by its squared magnitude, the tail's scaled by
// chunk/tail: by Parseval a bin's score is then the energy per scalar it restores, on one
// scale for every chunk. Works a block of chunks at a time, so scoring reads a spectrum
// still in cache.
// Also returns largest_magnitude(x), taken block by block just before each block's transform.
float transform_and_score(const SpectrumLayout& s, const float* x, std::complex<float>* spectrum,
                          float* scores) {
    constexpr std::uint64_t kBlockValues = 1 << 14;
    const FftBackend& fft = default_fft_backend();
    const ChunkLayout& c = s.chunks;
    const std::uint64_t per_block = std::max<std::uint64_t>(1, kBlockValues / c.chunk);
    ScratchVector<std::uint32_t> block_largest(piece_count(c.full, per_block) + 1, 0);
    // Blocks are independent: with several threads each takes whole blocks.
    parallel_pieces(c.full, per_block, [&](std::uint64_t first, std::uint64_t count) {
        std::complex<float>* block = spectrum + first * s.stride;
        const float* values = x + first * c.chunk;
        // The scan streams the block in, so the transform then reads it from cache.
        block_largest[first / per_block] =
            std::bit_cast<std::uint32_t>(largest_magnitude(std::span(values, count * c.chunk)));
        fft.forward_r2c({c.chunk, count, c.chunk, s.stride}, values, block);
        score_bins(block, s.stride, s.bins, count, 1.0f, scores + first * s.bins);
    });
    const float* tail = x + c.full * c.chunk;
    block_largest.back() = std::bit_cast<std::uint32_t>(largest_magnitude(std::span(tail, c.tail)));
    if (c.tail != 0) {
        std::complex<float>* block = spectrum + c.full * s.stride;
        fft.forward_r2c({c.tail, 1, c.tail, s.tail_bins}, x + c.full * c.chunk, block);
        score_bins(block, s.tail_bins, s.tail_bins, 1, s.tail_score_scale(),
                   scores + c.full * s.bins);
    }
    return std::bit_cast<float>(*std::max_element(block_largest.begin(), block_largest.end()));
}

ScratchVector<std::uint64_t> select_bins(const FrequencyParams& params, const SpectrumLayout& s,
                                         std::span<float> scores) {
    if (params.selector == FrequencySelector::topk) {
        return select_by_weight(scores, s.real_bins(),
                                kept_scalar_target(params.density, s.chunks.n));
    }
    // The estimators fit distributions of magnitudes, not of energies.
    for (float& v : scores) v = std::sqrt(v);
    return select_coefficients(params.selector, scores, params.density);
}

// Re, then Im unless the bin is real, for each kept bin in ascending order.
ScratchVector<float> gather_values(const SpectrumLayout& s, const std::complex<float>* spectrum,
                                   std::span<const std::uint64_t> kept) {
    ScratchVector<float> values;
    // Sized once and written through a cursor (both parts of each bin; a real bin's Im is
    // overwritten by the next bin), then cut to what was kept.
    values.resize(2 * kept.size());
    float* cursor = values.data();
    std::uint64_t chunk = 0, first = 0;  // the chunk holding the current bin, its first bin
    std::uint64_t len = s.chunks.full != 0 ? s.chunks.chunk : s.chunks.tail;
    for (const std::uint64_t g : kept) {
        while (g >= first + s.bins) {
            ++chunk;
            first += s.bins;
            len = chunk < s.chunks.full ? s.chunks.chunk : s.chunks.tail;
        }
        const std::uint64_t k = g - first;
        const std::complex<float> v = spectrum[chunk * s.stride + k];
        cursor[0] = v.real();
        cursor[1] = v.imag();
        cursor += k != 0 && !(len % 2 == 0 && k == len / 2) ? 2 : 1;
    }
    values.resize(static_cast<std::size_t>(cursor - values.data()));
    return values;
}

void encode_floats(const FrequencyParams& params, const TensorMeta& meta, std::span<const float> x,
                   const EncodeOptions& options, ByteOutput& out) {
    // The estimating selectors may not rank NaN first, so they get the explicit check.
    if (params.selector != FrequencySelector::topk) require_finite(meta, x);
    const SpectrumLayout s(ChunkLayout(x.size(), params.chunk));
    if (params.selector == FrequencySelector::topk) {
        const std::uint64_t target = kept_scalar_target(params.density, s.chunks.n);
        FftSelection selection;
        if (target < s.total_weight() && select_while_transforming(s, x, target, selection)) {
            write_frequency_payload(params, meta, x, selection.largest, selection.kept_bins(),
                                    s.bin_count(), selection.kept_values(), options, "FFT", out);
            return;
        }
    }
    AlignedArray<std::complex<float>> spectrum(s.storage());
    AlignedArray<float> scores(s.bin_count());
    const float largest = transform_and_score(s, x.data(), spectrum.data(), scores.data());
    const ScratchVector<std::uint64_t> kept = select_bins(params, s, scores.span());

    const ScratchVector<float> values = gather_values(s, spectrum.data(), kept);
    write_frequency_payload(params, meta, x, largest, kept, s.bin_count(), values, options, "FFT",
                            out);
}

FrequencyParams parse_params(const CodecSpec& spec) {
    return parse_frequency_params(spec, kFftDefaultChunk);
}

void encode(const FrequencyParams& params, const TensorMeta& meta, std::span<const std::byte> data,
            const EncodeOptions& options, ByteOutput& out) {
    encode_float32(meta, data,
                   [&](std::span<const float> x) { encode_floats(params, meta, x, options, out); });
}

// The inverse of gather_values, with the 1/length of the inverse DFT applied to the few kept
// bins rather than to every output value.
void scatter_values(const SpectrumLayout& s, std::span<const float> values,
                    std::span<const std::uint64_t> kept, std::complex<float>* spectrum) {
    std::uint64_t chunk = 0, first = 0;
    std::uint64_t len = s.chunks.full != 0 ? s.chunks.chunk : s.chunks.tail;
    float scale = 1.0f / static_cast<float>(len == 0 ? 1 : len);
    std::size_t v = 0;
    for (const std::uint64_t g : kept) {
        while (g >= first + s.bins) {
            ++chunk;
            first += s.bins;
            len = chunk < s.chunks.full ? s.chunks.chunk : s.chunks.tail;
            scale = 1.0f / static_cast<float>(len);
        }
        const std::uint64_t k = g - first;
        const float re = values[v++] * scale;
        const bool real = k == 0 || (len % 2 == 0 && k == len / 2);
        const float im = real ? 0.0f : values[v++] * scale;
        spectrum[chunk * s.stride + k] = {re, im};
    }
}

void decode(const TensorMeta& meta, std::span<const std::uint8_t> payload,
            std::span<std::byte> out) {
    ByteReader r(payload, meta.name, "fft payload");
    const FrequencyHeader h = read_frequency_header(r);
    const std::uint64_t n = out.size() / dtype_size(meta.dtype);
    const SpectrumLayout s(ChunkLayout(n, h.chunk));
    ScratchVector<std::uint64_t> kept;
    decode_positions_into(r, s.bin_count(), kept);
    ScratchVector<float> values(s.scalars_of(kept));
    decode_values(r, values);
    r.expect_end();

    decode_float32(meta, out, [&](std::span<float> y) {
        AlignedArray<std::complex<float>> spectrum(s.storage());
        std::memset(static_cast<void*>(spectrum.data()), 0,
                    sizeof(std::complex<float>) * s.storage());
        scatter_values(s, values, kept, spectrum.data());
        const FftBackend& fft = default_fft_backend();
        const ChunkLayout& c = s.chunks;
        constexpr std::uint64_t kBlockValues = 1 << 16;
        parallel_pieces(c.full, std::max<std::uint64_t>(1, kBlockValues / c.chunk),
                        [&](std::uint64_t first, std::uint64_t count) {
                            fft.inverse_c2r({c.chunk, count, s.stride, c.chunk},
                                            spectrum.data() + first * s.stride,
                                            y.data() + first * c.chunk);
                        });
        if (c.tail != 0) {
            fft.inverse_c2r({c.tail, 1, s.tail_bins, c.tail}, spectrum.data() + c.full * s.stride,
                            y.data() + c.full * c.chunk);
        }
    });
}

PayloadStats describe(const TensorMeta& meta, std::span<const std::uint8_t> payload) {
    return describe_frequency_payload(
        meta, payload, "fft", [](const ChunkLayout& c) { return SpectrumLayout(c).bin_count(); },
        [](const ChunkLayout& c, std::span<const std::uint64_t> kept) {
            return SpectrumLayout(c).scalars_of(kept);
        });
}

// An r2c spectrum of a chunk of length L has floor(L/2)+1 bins carrying at most L+2 scalars.
std::uint64_t payload_bound(const FrequencyParams& params, const TensorMeta& meta,
                            const EncodeOptions& options) {
    const ChunkLayout c(meta.element_count(), params.chunk);
    const std::uint64_t chunks = c.full + (c.tail != 0 ? 1 : 0);
    return frequency_payload_bound(params, size_add(c.n, chunks),
                                   size_add(c.n, size_mul(2, chunks)), options);
}

}  // namespace

namespace {

// The tensor's bin scores as its own encoder ranks them: energies weighted by the scalars
// each bin carries for select=topk, magnitudes for the estimators.
struct FftScores {
    FftScores(const FrequencyParams& params, std::span<const float> x)
        : layout(ChunkLayout(x.size(), params.chunk)),
          spectrum(layout.storage()),
          scores(layout.bin_count()),
          weighted(params.selector == FrequencySelector::topk) {
        transform_and_score(layout, x.data(), spectrum.data(), scores.data());
        if (weighted) {
            singles = layout.real_bins();
        } else {
            for (float& v : scores.span()) v = std::sqrt(v);
        }
    }
    ElementWeights weights() const { return {weighted, singles}; }

    SpectrumLayout layout;
    AlignedArray<std::complex<float>> spectrum;
    AlignedArray<float> scores;
    ScratchVector<std::uint64_t> singles;
    bool weighted;
};

}  // namespace

std::uint64_t fft_group_score_count(const CodecSpec& spec, std::uint64_t n) {
    const FrequencyParams params = parse_frequency_params(spec, kFftDefaultChunk);
    return SpectrumLayout(ChunkLayout(n, params.chunk)).bin_count();
}

void fft_group_scores(const CodecSpec& spec, std::span<const float> x, const ScoreVisitor& visit) {
    const FftScores s(parse_frequency_params(spec, kFftDefaultChunk), x);
    visit(s.scores.span(), s.weights());
}

std::vector<std::uint8_t> encode_fft_with_cut(const CodecSpec& spec, const TensorMeta& meta,
                                              std::span<const float> x, const GroupCut& cut,
                                              std::uint64_t tie_budget,
                                              const EncodeOptions& options, std::uint64_t& spent) {
    const FrequencyParams params = parse_frequency_params(spec, kFftDefaultChunk);
    require_finite(meta, x);  // a non-finite bin could fall below another tensor's cut
    const FftScores s(params, x);
    const ScratchVector<std::uint64_t> kept =
        select_with_cut(s.scores.span(), {cut.bits, tie_budget}, s.weights(), spent).indices;
    const ScratchVector<float> values = gather_values(s.layout, s.spectrum.data(), kept);
    return written_bytes([&](ByteOutput& out) {
        write_frequency_payload(params, meta, x, kept, s.layout.bin_count(), values, options, "FFT",
                                out);
    });
}

const CodecDef kFftCodec = codec_row<parse_params, encode, payload_bound>({
    .name = "fft",
    .id = kCodecFft,
    .payload = "fft",
    .summary =
        "SuperNeurons FFT sparsification: density=D, chunk=C, bits=N or values=f32|f16|bf16, "
        "select=topk|sidco|dgc",
    .defaults = "density=0.15, chunk=256, select=topk, values=rangeq, bits=10",
    .group = GroupFamily::fft,
    .knob = {KnobKind::density, "density", {}, false},
    .decode = decode,
    .describe = describe,
});

}  // namespace gradcodec
