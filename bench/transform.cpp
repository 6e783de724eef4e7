// Raw transform throughput of the FFTW backend: GB/s of float input, over a 16 MiB tensor
// cut into chunks of 2^8..2^16 values (one core). Also compares FFTW_ESTIMATE with
// FFTW_MEASURE plans, which decides the planner flag the codecs use.
#include <benchmark/benchmark.h>
#include <fftw3.h>

#include <complex>
#include <random>
#include <vector>

#include "transform/fft_backend.hpp"
#include "transform/fftw_plan_cache.hpp"

using namespace gradcodec;

namespace {

constexpr std::size_t kValues = std::size_t{1} << 22;

const std::vector<float>& input() {
    static const std::vector<float> v = [] {
        std::mt19937 rng(1);
        std::normal_distribution<float> d(0.0f, 1e-3f);
        std::vector<float> x(kValues);
        for (auto& e : x) e = d(rng);
        return x;
    }();
    return v;
}

void set_flags(const benchmark::State& state) {
    set_fftw_planner_flags(state.range(1) != 0 ? FFTW_MEASURE : FFTW_ESTIMATE);
}

void label(benchmark::State& state) {
    state.SetLabel(state.range(1) != 0 ? "measure" : "estimate");
    state.SetBytesProcessed(
        static_cast<std::int64_t>(state.iterations() * kValues * sizeof(float)));
}

void BM_fftw_r2c(benchmark::State& state) {
    set_flags(state);
    const auto c = static_cast<std::size_t>(state.range(0));
    const TransformBatch b{c, kValues / c, c, r2c_bins(c) + (r2c_bins(c) & 1)};
    std::vector<std::complex<float>> out(b.count * b.out_stride);
    const FftBackend& fft = fftw_backend();
    fft.forward_r2c(b, input().data(), out.data());  // plan outside the timing
    for (auto _ : state) {
        fft.forward_r2c(b, input().data(), out.data());
        benchmark::DoNotOptimize(out.data());
    }
    label(state);
}

void BM_fftw_c2r(benchmark::State& state) {
    set_flags(state);
    const auto c = static_cast<std::size_t>(state.range(0));
    const TransformBatch f{c, kValues / c, c, r2c_bins(c) + (r2c_bins(c) & 1)};
    const TransformBatch b{c, kValues / c, f.out_stride, c};
    std::vector<std::complex<float>> spectrum(f.count * f.out_stride), work(spectrum.size());
    std::vector<float> out(kValues);
    const FftBackend& fft = fftw_backend();
    fft.forward_r2c(f, input().data(), spectrum.data());
    for (auto _ : state) {
        state.PauseTiming();
        work = spectrum;  // c2r may overwrite its input
        state.ResumeTiming();
        fft.inverse_c2r(b, work.data(), out.data());
        benchmark::DoNotOptimize(out.data());
    }
    label(state);
}

void BM_fftw_dct2(benchmark::State& state) {
    set_flags(state);
    const auto c = static_cast<std::size_t>(state.range(0));
    const TransformBatch b{c, kValues / c, c, c};
    std::vector<float> out(kValues);
    const FftBackend& fft = fftw_backend();
    fft.dct2(b, input().data(), out.data());
    for (auto _ : state) {
        fft.dct2(b, input().data(), out.data());
        benchmark::DoNotOptimize(out.data());
    }
    label(state);
}

void sizes(benchmark::internal::Benchmark* b) {
    for (int flag : {0, 1})
        for (int log = 6; log <= 16; ++log) b->Args({1 << log, flag});
}

}  // namespace

BENCHMARK(BM_fftw_r2c)->Apply(sizes);
BENCHMARK(BM_fftw_c2r)->Apply(sizes);
BENCHMARK(BM_fftw_dct2)->Apply(sizes);
BENCHMARK_MAIN();
