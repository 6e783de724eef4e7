// fft / dct codec throughput against the raw FFTW transform at the same chunk size, in the
// same run: GB/s of float32 input (encode) or output (decode) for a 16 MiB tensor, one core.
// The figures and targets of docs/performance.md come from here: fft encode at D=0.15
// against raw r2c at the default chunk, and the table of chunk sizes.
#include <benchmark/benchmark.h>

#include <complex>
#include <random>
#include <string>
#include <vector>

#include "gradcodec/codec.hpp"
#include "transform/fft_backend.hpp"

using namespace gradcodec;

namespace {

constexpr std::size_t kValues = std::size_t{1} << 22;

const std::vector<float>& gradient() {
    static const std::vector<float> v = [] {
        std::mt19937 rng(1);
        std::student_t_distribution<float> heavy(3.0f);
        std::vector<float> x(kValues);
        for (auto& e : x) e = 1e-3f * heavy(rng);
        return x;
    }();
    return v;
}

const TensorMeta& meta() {
    static const TensorMeta m{"bench", DType::f32, {kValues}};
    return m;
}

void throughput(benchmark::State& state) {
    state.SetBytesProcessed(
        static_cast<std::int64_t>(state.iterations() * kValues * sizeof(float)));
}

std::string spec_for(const char* codec, const benchmark::State& state) {
    return std::string(codec) + ":chunk=" + std::to_string(state.range(0)) +
           ",density=" + std::to_string(static_cast<double>(state.range(1)) / 1000.0);
}

void BM_raw_fftw_r2c(benchmark::State& state) {
    const auto c = static_cast<std::size_t>(state.range(0));
    const TransformBatch b{c, kValues / c, c, r2c_bins(c) + (r2c_bins(c) & 1)};
    std::vector<std::complex<float>> out(b.count * b.out_stride);
    const FftBackend& fft = fftw_backend();
    fft.forward_r2c(b, gradient().data(), out.data());
    for (auto _ : state) {
        fft.forward_r2c(b, gradient().data(), out.data());
        benchmark::DoNotOptimize(out.data());
    }
    throughput(state);
}

void encode_bench(benchmark::State& state, const char* codec) {
    const CodecSpec spec = parse_codec_spec(spec_for(codec, state));
    const auto in = std::as_bytes(std::span<const float>(gradient()));
    std::size_t bytes = 0;
    for (auto _ : state) {
        const EncodedTensor e = encode_tensor(spec, meta(), in);
        bytes = e.payload.size();
        benchmark::DoNotOptimize(e.payload.data());
    }
    throughput(state);
    state.counters["bits_per_value"] = 8.0 * static_cast<double>(bytes) / kValues;
}

void decode_bench(benchmark::State& state, const char* codec) {
    const EncodedTensor e = encode_tensor(parse_codec_spec(spec_for(codec, state)), meta(),
                                          std::as_bytes(std::span<const float>(gradient())));
    std::vector<float> out(kValues);
    for (auto _ : state) {
        decode_tensor(e.codec_id, meta(), e.payload, std::as_writable_bytes(std::span<float>(out)));
        benchmark::DoNotOptimize(out.data());
    }
    throughput(state);
}

void BM_fft_encode(benchmark::State& state) {
    encode_bench(state, "fft");
}
void BM_fft_decode(benchmark::State& state) {
    decode_bench(state, "fft");
}
void BM_dct_encode(benchmark::State& state) {
    encode_bench(state, "dct");
}
void BM_dct_decode(benchmark::State& state) {
    decode_bench(state, "dct");
}

// (chunk, density in thousandths): the paper's 0.15 and a sparse 0.01.
void chunks(benchmark::internal::Benchmark* b) {
    for (int density : {150, 10})
        for (int log : {6, 8, 10, 12, 14, 16}) b->Args({1 << log, density});
}

}  // namespace

BENCHMARK(BM_raw_fftw_r2c)->Apply(chunks);
BENCHMARK(BM_fft_encode)->Apply(chunks);
BENCHMARK(BM_fft_decode)->Apply(chunks);
BENCHMARK(BM_dct_encode)->Apply(chunks);
BENCHMARK(BM_dct_decode)->Apply(chunks);
BENCHMARK_MAIN();
