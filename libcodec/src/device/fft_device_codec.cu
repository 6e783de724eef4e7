#include <algorithm>
// The fft codec (id 5, select=topk) on the device. The bytes it writes follow
// format-spec/codec-fft.md exactly as codec/fft_codec.cpp does: same header, same position
// section (written by encode_positions from the kept indices), same value section (written
// by encode_values from the kept values). Only the arithmetic before them runs on the GPU.
#include <cuda_runtime.h>
#include <cufft.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cmath>
#include <cub/device/device_scan.cuh>
#include <string>
#include <vector>

#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "codec/frequency_codec.hpp"
#include "cuda_check.hpp"
#include "cufft_backend.hpp"
#include "fft_device_codec.hpp"
#include "index/position_coder.hpp"
#include "radix_select.hpp"

namespace gradcodec::cuda {
namespace {

// Device spectra are packed densely: bin g of the codec's numbering sits at slot g.
struct DeviceSpectrum {
    explicit DeviceSpectrum(const ChunkLayout& c)
        : chunks(c), bins(r2c_bins(c.chunk)), tail_bins(c.tail != 0 ? r2c_bins(c.tail) : 0) {}
    std::uint64_t bin_count() const { return chunks.full * bins + tail_bins; }
    WeightRule rule() const { return {bins, chunks.full, chunks.chunk, chunks.tail}; }
    ChunkLayout chunks;
    std::uint64_t bins;
    std::uint64_t tail_bins;
};

constexpr unsigned kThreads = 256;
unsigned cover(std::uint64_t n) {
    return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

__device__ __forceinline__ bool is_real_bin(const WeightRule& r, std::uint64_t g,
                                            std::uint64_t* len_out) {
    const std::uint64_t c = g / r.bins;
    const std::uint64_t k = g - c * r.bins;
    const std::uint64_t len = c < r.full ? r.chunk : r.tail;
    *len_out = len;
    return k == 0 || (len % 2 == 0 && k == len / 2);
}

// As score_chunk on the CPU: (re² + im²)·scale, the tail's scale chunk/tail, unfused so the
// rounding matches the host's for equal spectra.
__global__ void score_bins(const cufftComplex* spectrum, std::uint64_t count,
                           std::uint64_t first_tail, float tail_scale, float* scores) {
    const std::uint64_t g = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
    if (g >= count) return;
    const cufftComplex v = spectrum[g];
    const float energy = __fadd_rn(__fmul_rn(v.x, v.x), __fmul_rn(v.y, v.y));
    scores[g] = __fmul_rn(energy, g >= first_tail ? tail_scale : 1.0f);
}

struct BinWeight {
    const std::uint64_t* kept;
    WeightRule rule;
    __device__ std::uint64_t operator()(std::uint64_t j) const {
        std::uint64_t len = 0;
        return is_real_bin(rule, kept[j], &len) ? 1u : 2u;
    }
};

// Re, then Im unless the bin is real, at each kept bin's scalar offset.
__global__ void gather_values(const cufftComplex* spectrum, const std::uint64_t* kept,
                              const std::uint64_t* offsets, std::uint64_t k, WeightRule rule,
                              float* values) {
    const std::uint64_t j = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
    if (j >= k) return;
    std::uint64_t len = 0;
    const bool real = is_real_bin(rule, kept[j], &len);
    const cufftComplex v = spectrum[kept[j]];
    values[offsets[j]] = v.x;
    if (!real) values[offsets[j] + 1] = v.y;
}

// The inverse of gather_values with the inverse DFT's 1/length, as scatter_values on the CPU.
__global__ void scatter_values(const float* values, const std::uint64_t* kept,
                               const std::uint64_t* offsets, std::uint64_t k, WeightRule rule,
                               cufftComplex* spectrum) {
    const std::uint64_t j = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
    if (j >= k) return;
    std::uint64_t len = 0;
    const bool real = is_real_bin(rule, kept[j], &len);
    const float scale = __frcp_rn(static_cast<float>(len));
    const float re = __fmul_rn(values[offsets[j]], scale);
    const float im = real ? 0.0f : __fmul_rn(values[offsets[j] + 1], scale);
    spectrum[kept[j]] = make_cuFloatComplex(re, im);
}

// Exclusive scalar offsets of the kept bins; returns the total.
std::uint64_t scalar_offsets(const std::uint64_t* kept, std::uint64_t k, const WeightRule& rule,
                             std::uint64_t* offsets) {
    if (k == 0) return 0;
    const auto weights = thrust::make_transform_iterator(
        thrust::counting_iterator<std::uint64_t>(0), BinWeight{kept, rule});
    std::size_t bytes = 0;
    const auto count = static_cast<std::int64_t>(k);
    check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, weights, offsets, count), "offset scan");
    DeviceArray<unsigned char> scratch(bytes);
    check(cub::DeviceScan::ExclusiveSum(scratch.data(), bytes, weights, offsets, count),
          "offset scan");
    std::uint64_t last_offset = 0, last_bin = 0;
    check(cudaMemcpy(&last_offset, offsets + k - 1, sizeof last_offset, cudaMemcpyDeviceToHost),
          "offset copy");
    check(cudaMemcpy(&last_bin, kept + k - 1, sizeof last_bin, cudaMemcpyDeviceToHost), "bin copy");
    const std::uint64_t c = last_bin / rule.bins, b = last_bin - c * rule.bins;
    const std::uint64_t len = c < rule.full ? rule.chunk : rule.tail;
    return last_offset + (b == 0 || (len % 2 == 0 && b == len / 2) ? 1 : 2);
}

void forward_all(const DeviceSpectrum& s, const float* x, cufftComplex* spectrum) {
    const FftBackend& fft = cufft_backend();
    const ChunkLayout& c = s.chunks;
    auto* out = reinterpret_cast<std::complex<float>*>(spectrum);
    if (c.full != 0) fft.forward_r2c({c.chunk, c.full, c.chunk, s.bins}, x, out);
    if (c.tail != 0) {
        fft.forward_r2c({c.tail, 1, c.tail, s.tail_bins}, x + c.full * c.chunk,
                        out + c.full * s.bins);
    }
}

void inverse_all(const DeviceSpectrum& s, cufftComplex* spectrum, float* y) {
    const FftBackend& fft = cufft_backend();
    const ChunkLayout& c = s.chunks;
    auto* in = reinterpret_cast<std::complex<float>*>(spectrum);
    if (c.full != 0) fft.inverse_c2r({c.chunk, c.full, s.bins, c.chunk}, in, y);
    if (c.tail != 0) {
        fft.inverse_c2r({c.tail, 1, s.tail_bins, c.tail}, in + c.full * s.bins,
                        y + c.full * c.chunk);
    }
}

template <class T>
std::vector<T> to_host(const T* device, std::uint64_t count, const char* what) {
    std::vector<T> out(count);
    if (count != 0)
        check(cudaMemcpy(out.data(), device, sizeof(T) * count, cudaMemcpyDeviceToHost), what);
    return out;
}

}  // namespace

void encode_fft_on_device(const FrequencyParams& params, const TensorMeta& meta, const float* x,
                          const EncodeOptions& options, ByteOutput& out) {
    const std::uint64_t n = meta.element_count();
    const DeviceSpectrum s(ChunkLayout(n, params.chunk));
    const std::uint64_t bins = s.bin_count();
    DeviceArray<cufftComplex> spectrum(bins);
    DeviceArray<float> scores(bins);
    forward_all(s, x, spectrum.data());
    const float tail_scale = s.chunks.tail == 0
                                 ? 1.0f
                                 : static_cast<float>(static_cast<double>(s.chunks.chunk) /
                                                      static_cast<double>(s.chunks.tail));
    if (bins != 0) {
        score_bins<<<cover(bins), kThreads>>>(spectrum.data(), bins, s.chunks.full * s.bins,
                                              tail_scale, scores.data());
        check(cudaGetLastError(), "score kernel");
    }
    DeviceArray<std::uint64_t> kept(bins);
    const std::uint64_t k = select_by_weight_on_device(
        scores.data(), bins, s.rule(), kept_scalar_target(params.density, n), kept.data());
    DeviceArray<std::uint64_t> offsets(k);
    const std::uint64_t scalars = scalar_offsets(kept.data(), k, s.rule(), offsets.data());
    DeviceArray<float> values(scalars);
    if (k != 0) {
        gather_values<<<cover(k), kThreads>>>(spectrum.data(), kept.data(), offsets.data(), k,
                                              s.rule(), values.data());
        check(cudaDeviceSynchronize(), "gather kernel");
    }
    const std::vector<std::uint64_t> host_kept = to_host(kept.data(), k, "kept copy");
    const std::vector<float> host_values = to_host(values.data(), scalars, "values copy");
    // The input comes to the host only when write_frequency_payload must name a bad element.
    std::vector<float> host_x;
    if (!std::all_of(host_values.begin(), host_values.end(),
                     [](float v) { return std::isfinite(v); })) {
        host_x = to_host(x, n, "input copy");
    }
    write_frequency_payload(params, meta, host_x, host_kept, bins, host_values, options, "FFT",
                            out);
}

void decode_fft_on_device(const TensorMeta& meta, std::span<const std::uint8_t> payload, float* y) {
    // Every check happens here on the host, as in codec/fft_codec.cpp, before device work.
    ByteReader r(payload, meta.name + ": fft payload");
    const FrequencyHeader h = read_frequency_header(r);
    const std::uint64_t n = meta.element_count();
    const DeviceSpectrum s(ChunkLayout(n, h.chunk));
    const std::vector<std::uint64_t> kept = decode_positions(r, s.bin_count());
    std::uint64_t scalars = 0;
    for (const std::uint64_t g : kept) {
        const std::uint64_t c = g / s.bins, b = g - c * s.bins;
        const std::uint64_t len = c < s.chunks.full ? s.chunks.chunk : s.chunks.tail;
        scalars += b == 0 || (len % 2 == 0 && b == len / 2) ? 1 : 2;
    }
    std::vector<float> values(scalars);
    decode_values(r, values);
    r.expect_end();

    const std::uint64_t k = kept.size();
    DeviceArray<std::uint64_t> device_kept(k);
    DeviceArray<float> device_values(scalars);
    if (k != 0) {
        check(cudaMemcpy(device_kept.data(), kept.data(), sizeof(std::uint64_t) * k,
                         cudaMemcpyHostToDevice),
              "kept upload");
        check(cudaMemcpy(device_values.data(), values.data(), sizeof(float) * scalars,
                         cudaMemcpyHostToDevice),
              "values upload");
    }
    DeviceArray<std::uint64_t> offsets(k);
    scalar_offsets(device_kept.data(), k, s.rule(), offsets.data());
    DeviceArray<cufftComplex> spectrum(s.bin_count());
    check(cudaMemset(spectrum.data(), 0, sizeof(cufftComplex) * s.bin_count()), "spectrum reset");
    if (k != 0) {
        scatter_values<<<cover(k), kThreads>>>(device_values.data(), device_kept.data(),
                                               offsets.data(), k, s.rule(), spectrum.data());
        check(cudaGetLastError(), "scatter kernel");
    }
    inverse_all(s, spectrum.data(), y);
}

}  // namespace gradcodec::cuda
