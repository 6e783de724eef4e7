// fft: SuperNeurons' sparsification in the frequency domain. Each chunk of the tensor goes
// through a real-to-complex FFT; the bins of largest magnitude across all chunks are kept
// until they carry about density·n real scalars; decode zero-fills the rest and inverts.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <string>

#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "codec/frequency_codec.hpp"
#include "index/position_coder.hpp"
#include "transform/aligned_array.hpp"
#include "transform/fft_backend.hpp"

namespace gradcodec {
namespace {

// Chosen by measurement (bench/fft_codec.cpp and the rel L2 survey in the codec's spec).
constexpr std::uint32_t kDefaultChunk = 4096;

// Where each bin of a chunked spectrum lives. Bins are numbered densely across chunks
// (bin g is bin g mod bins of chunk g div bins) for positions; in memory each full chunk
// starts at an even stride so every chunk stays 16-byte aligned for FFTW.
struct SpectrumLayout {
    explicit SpectrumLayout(const ChunkLayout& c)
        : chunks(c),
          bins(r2c_bins(c.chunk)),
          stride(bins + (bins & 1)),
          tail_bins(c.tail != 0 ? r2c_bins(c.tail) : 0) {}

    std::uint64_t bin_count() const { return chunks.full * bins + tail_bins; }
    std::uint64_t storage() const { return chunks.full * stride + tail_bins; }
    std::uint64_t slot(std::uint64_t g) const { return g / bins * stride + g % bins; }
    std::uint64_t length_of(std::uint64_t g) const {
        return g / bins < chunks.full ? chunks.chunk : chunks.tail;
    }
    // DC and, for an even length, Nyquist bins are real: they carry one scalar, others two.
    bool is_real(std::uint64_t g) const {
        const std::uint64_t k = g % bins;
        const std::uint64_t len = length_of(g);
        return k == 0 || (len % 2 == 0 && k == len / 2);
    }
    std::uint64_t real_count() const {
        const auto per = [](std::uint64_t len) -> std::uint64_t {
            return len == 0 ? 0 : (len % 2 == 0 ? 2 : 1);
        };
        return chunks.full * per(chunks.chunk) + per(chunks.tail);
    }

    ChunkLayout chunks;
    std::uint64_t bins;
    std::uint64_t stride;
    std::uint64_t tail_bins;
};

void forward(const SpectrumLayout& s, const float* x, std::complex<float>* spectrum) {
    const FftBackend& fft = default_fft_backend();
    const ChunkLayout& c = s.chunks;
    fft.forward_r2c({c.chunk, c.full, c.chunk, s.stride}, x, spectrum);
    if (c.tail != 0) {
        fft.forward_r2c({c.tail, 1, c.tail, s.tail_bins}, x + c.full * c.chunk,
                        spectrum + c.full * s.stride);
    }
}

// Squared magnitudes, the tail's scaled by chunk/tail: by Parseval each bin then scores the
// energy per scalar it restores, on one scale for every chunk.
void squared_magnitudes(const SpectrumLayout& s, const std::complex<float>* spectrum,
                        float* scores) {
    const ChunkLayout& c = s.chunks;
    for (std::uint64_t chunk = 0; chunk < c.full; ++chunk) {
        const std::complex<float>* src = spectrum + chunk * s.stride;
        float* dst = scores + chunk * s.bins;
        for (std::uint64_t k = 0; k < s.bins; ++k) {
            dst[k] = src[k].real() * src[k].real() + src[k].imag() * src[k].imag();
        }
    }
    if (c.tail != 0) {
        const std::complex<float>* src = spectrum + c.full * s.stride;
        float* dst = scores + c.full * s.bins;
        const auto scale =
            static_cast<float>(static_cast<double>(c.chunk) / static_cast<double>(c.tail));
        for (std::uint64_t k = 0; k < s.tail_bins; ++k) {
            dst[k] = (src[k].real() * src[k].real() + src[k].imag() * src[k].imag()) * scale;
        }
    }
}

std::vector<std::uint64_t> select_bins(const FrequencyParams& params, const SpectrumLayout& s,
                                       std::span<float> scores) {
    if (params.selector == FrequencySelector::topk) {
        return select_by_weight(
            scores, [&](std::uint64_t g) { return s.is_real(g); }, s.real_count(),
            kept_scalar_target(params.density, s.chunks.n));
    }
    // The estimators fit distributions of magnitudes, not of energies.
    for (float& v : scores) v = std::sqrt(v);
    return select_coefficients(params.selector, scores, params.density);
}

std::vector<std::uint8_t> encode_floats(const FrequencyParams& params, const TensorMeta& meta,
                                        std::span<const float> x, const EncodeOptions& options) {
    require_finite(meta, x);
    const SpectrumLayout s(ChunkLayout(x.size(), params.chunk));
    AlignedArray<std::complex<float>> spectrum(s.storage());
    forward(s, x.data(), spectrum.data());
    AlignedArray<float> scores(s.bin_count());
    squared_magnitudes(s, spectrum.data(), scores.data());
    const std::vector<std::uint64_t> kept = select_bins(params, s, scores.span());

    std::vector<float> values;
    values.reserve(2 * kept.size());
    for (const std::uint64_t g : kept) {
        const std::complex<float> v = spectrum[s.slot(g)];
        values.push_back(v.real());
        if (!s.is_real(g)) values.push_back(v.imag());
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (!std::isfinite(values[i])) {
            fail(ErrorKind::bad_input, meta.name +
                                           ": the FFT of this tensor overflows binary32 (values "
                                           "too large for chunks of " +
                                           std::to_string(params.chunk) + ")");
        }
    }
    std::vector<std::uint8_t> out;
    ByteWriter w(out);
    write_frequency_header(w, {params.chunk, params.density});
    encode_positions(kept, s.bin_count(), w);
    encode_values(params.values, values, meta, options, w);
    return out;
}

std::vector<std::uint8_t> encode(const CodecSpec& spec, const TensorMeta& meta,
                                 std::span<const std::byte> data, const EncodeOptions& options) {
    require_float_tensor(spec, meta);
    const FrequencyParams params = parse_frequency_params(spec, kDefaultChunk);
    return encode_float32(meta, data, [&](std::span<const float> x) {
        return encode_floats(params, meta, x, options);
    });
}

void decode(const TensorMeta& meta, std::span<const std::uint8_t> payload,
            std::span<std::byte> out) {
    ByteReader r(payload, meta.name + ": fft payload");
    const FrequencyHeader h = read_frequency_header(r);
    const std::uint64_t n = out.size() / dtype_size(meta.dtype);
    const SpectrumLayout s(ChunkLayout(n, h.chunk));
    const std::vector<std::uint64_t> kept = decode_positions(r, s.bin_count());
    std::uint64_t scalars = 0;
    for (const std::uint64_t g : kept) scalars += s.is_real(g) ? 1 : 2;
    std::vector<float> values(scalars);
    decode_values(r, values);
    r.expect_end();

    decode_float32(meta, out, [&](std::span<float> y) {
        AlignedArray<std::complex<float>> spectrum(s.storage());
        std::memset(static_cast<void*>(spectrum.data()), 0,
                    sizeof(std::complex<float>) * s.storage());
        // The 1/length of the inverse DFT is applied here, to the few kept bins only.
        const auto chunk_scale = static_cast<float>(1.0 / static_cast<double>(h.chunk));
        const auto tail_scale = s.chunks.tail != 0
                                    ? static_cast<float>(1.0 / static_cast<double>(s.chunks.tail))
                                    : 0.0f;
        std::size_t v = 0;
        for (const std::uint64_t g : kept) {
            const float scale = g / s.bins < s.chunks.full ? chunk_scale : tail_scale;
            const float re = values[v++] * scale;
            const float im = s.is_real(g) ? 0.0f : values[v++] * scale;
            spectrum[s.slot(g)] = {re, im};
        }
        const FftBackend& fft = default_fft_backend();
        const ChunkLayout& c = s.chunks;
        fft.inverse_c2r({c.chunk, c.full, s.stride, c.chunk}, spectrum.data(), y.data());
        if (c.tail != 0) {
            fft.inverse_c2r({c.tail, 1, s.tail_bins, c.tail}, spectrum.data() + c.full * s.stride,
                            y.data() + c.full * c.chunk);
        }
    });
}

PayloadStats describe(const TensorMeta& meta, std::span<const std::uint8_t> payload) {
    return describe_frequency_payload(
        meta, payload, "fft", [](const ChunkLayout& c) { return SpectrumLayout(c).bin_count(); });
}

void validate(const CodecSpec& spec) {
    parse_frequency_params(spec, kDefaultChunk);
}

}  // namespace

const CodecDef kFftCodec{"fft",
                         kCodecFft,
                         "SuperNeurons FFT sparsification: density=D (0.15), chunk=C (4096), "
                         "bits=N (10) | values=f32|f16|bf16, select=topk|sidco|dgc",
                         true,
                         validate,
                         encode,
                         decode,
                         describe};

}  // namespace gradcodec
