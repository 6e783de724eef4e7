// GPU against CPU for the fft codec (and the sparse topk encoder): encode and decode GB/s (input
// f32 bytes per second) with the tensor in device memory (cuFFT path) and in host memory (FFTW
// path), plus the stages alone: the batched R2C FFT (cuFFT vs FFTW) and the device select +
// compaction. Without a usable GPU it prints why and exits 0 having measured nothing.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <complex>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_data.hpp"
#include "cufft_backend.hpp"
#include "gradcodec/cuda.hpp"
#include "gradcodec/gradcodec.hpp"
#include "radix_select.hpp"
#include "transform/fft_backend.hpp"

using namespace gradcodec;

namespace {

template <class T>
struct Device {
    explicit Device(std::size_t n) {
        if (cudaMalloc(reinterpret_cast<void**>(&p), sizeof(T) * (n == 0 ? 1 : n)) != cudaSuccess)
            std::abort();
    }
    Device(const std::vector<T>& host) : Device(host.size()) {
        cudaMemcpy(p, host.data(), sizeof(T) * host.size(), cudaMemcpyHostToDevice);
    }
    ~Device() { cudaFree(p); }
    T* p = nullptr;
};

void sizes(benchmark::internal::Benchmark* b) {
    b->Arg(1 << 20)->Arg(1 << 24)->Arg(25'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();
}

const char* kSpec = "fft";  // density 0.15, chunk 256, rangeq 10 bits: the paper's setting

void set_rate(benchmark::State& state, std::size_t n) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(n * 4));
}

void BM_gpu_fft_encode(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    Device<float> x(bench::gradient_like(n));
    const TensorMeta meta{"bench", DType::f32, {n}};
    const CodecSpec spec = parse_codec_spec(kSpec);
    std::size_t bytes = 0;
    for (auto _ : state) bytes = cuda::encode_tensor_on_device(spec, meta, x.p).payload.size();
    set_rate(state, n);
    state.counters["ratio"] = static_cast<double>(4 * n) / static_cast<double>(bytes);
}

void BM_cpu_fft_encode(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const std::vector<float>& x = bench::gradient_like(n);
    const TensorMeta meta{"bench", DType::f32, {n}};
    const CodecSpec spec = parse_codec_spec(kSpec);
    std::size_t bytes = 0;
    for (auto _ : state)
        bytes = encode_tensor(spec, meta, std::as_bytes(std::span(x))).payload.size();
    set_rate(state, n);
    state.counters["ratio"] = static_cast<double>(4 * n) / static_cast<double>(bytes);
}

void BM_gpu_fft_decode(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const std::vector<float>& x = bench::gradient_like(n);
    const TensorMeta meta{"bench", DType::f32, {n}};
    const EncodedTensor e =
        encode_tensor(parse_codec_spec(kSpec), meta, std::as_bytes(std::span(x)));
    Device<float> y(n);
    for (auto _ : state) cuda::decode_tensor_on_device(e.codec_id, meta, e.payload, y.p);
    set_rate(state, n);
}

void BM_cpu_fft_decode(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const std::vector<float>& x = bench::gradient_like(n);
    const TensorMeta meta{"bench", DType::f32, {n}};
    const EncodedTensor e =
        encode_tensor(parse_codec_spec(kSpec), meta, std::as_bytes(std::span(x)));
    std::vector<float> y(n);
    for (auto _ : state)
        decode_tensor(e.codec_id, meta, e.payload, std::as_writable_bytes(std::span(y)));
    set_rate(state, n);
}

// The transform alone: chunks of 256, as the codec's default.
void BM_cufft_r2c_256(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0)) / 256 * 256;
    Device<float> x(bench::gradient_like(n));
    Device<std::complex<float>> out(n / 256 * 129);
    const FftBackend& fft = cuda::cufft_backend();
    for (auto _ : state) fft.forward_r2c({256, n / 256, 256, 129}, x.p, out.p);
    set_rate(state, n);
}

void BM_fftw_r2c_256(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0)) / 256 * 256;
    const std::vector<float>& x = bench::gradient_like(n);
    std::vector<std::complex<float>> out(n / 256 * 129);
    const FftBackend& fft = fftw_backend();
    for (auto _ : state) fft.forward_r2c({256, n / 256, 256, 129}, x.data(), out.data());
    set_rate(state, n);
}

// Selection and prefix-sum compaction of the kept indices alone (top 15%, unit weights).
void BM_gpu_select_compact(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    Device<float> x(bench::gradient_like(n));
    Device<std::uint64_t> kept(n);
    const auto k = static_cast<std::uint64_t>(0.15 * static_cast<double>(n));
    for (auto _ : state)
        benchmark::DoNotOptimize(cuda::select_by_weight_on_device(x.p, n, {}, k, kept.p));
    set_rate(state, n);
}

// The sparse codec at the paper-era density 0.01 (top-k), device vs host input.
void BM_gpu_topk_encode(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    Device<float> x(bench::gradient_like(n));
    const TensorMeta meta{"bench", DType::f32, {n}};
    const CodecSpec spec = parse_codec_spec("topk:density=0.01");
    for (auto _ : state) benchmark::DoNotOptimize(cuda::encode_tensor_on_device(spec, meta, x.p));
    set_rate(state, n);
}

void BM_cpu_topk_encode(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const std::vector<float>& x = bench::gradient_like(n);
    const TensorMeta meta{"bench", DType::f32, {n}};
    const CodecSpec spec = parse_codec_spec("topk:density=0.01");
    for (auto _ : state) {
        benchmark::DoNotOptimize(encode_tensor(spec, meta, std::as_bytes(std::span(x))));
    }
    set_rate(state, n);
}

}  // namespace

BENCHMARK(BM_gpu_topk_encode)->Apply(sizes);
BENCHMARK(BM_cpu_topk_encode)->Apply(sizes);
BENCHMARK(BM_gpu_fft_encode)->Apply(sizes);
BENCHMARK(BM_cpu_fft_encode)->Apply(sizes);
BENCHMARK(BM_gpu_fft_decode)->Apply(sizes);
BENCHMARK(BM_cpu_fft_decode)->Apply(sizes);
BENCHMARK(BM_cufft_r2c_256)->Apply(sizes);
BENCHMARK(BM_fftw_r2c_256)->Apply(sizes);
BENCHMARK(BM_gpu_select_compact)->Apply(sizes);

int main(int argc, char** argv) {
    const std::string problem = cuda::device_problem();
    if (!problem.empty()) {
        std::printf("bench_fft_codec_gpu: nothing measured: %s\n", problem.c_str());
        return 0;
    }
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        benchmark::AddCustomContext("gpu", prop.name);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
