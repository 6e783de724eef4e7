// The lossless codec against plain zstd level 1 (what `zstd -1` runs) on the same 64 MB of
// float32 gradients. Compare the medians of one run: the machine is shared and noisy, so
// rates are per CPU second of this single-threaded process. Argument 0 of each benchmark is
// the share of exact zeros in the data (0 = dense Laplace, 40 = like the sample's ReLU layers).
#include <benchmark/benchmark.h>
#include <zstd.h>

#include "bench_data.hpp"
#include "gradcodec/gradcodec.hpp"

using namespace gradcodec;

namespace {

constexpr std::size_t kValues = 16u << 20;  // 64 MB of float32

std::span<const std::byte> input(const benchmark::State& state) {
    return std::as_bytes(
        std::span(bench::gradient_like(kValues, static_cast<int>(state.range(0)))));
}

void report(benchmark::State& state, std::size_t in, std::size_t out) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in));
    state.counters["ratio"] = double(in) / double(out);
}

void BM_zstd1_compress(benchmark::State& state) {
    const auto data = input(state);
    std::vector<std::uint8_t> out(ZSTD_compressBound(data.size()));
    std::size_t size = 0;
    for (auto _ : state) {
        size = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 1);
        benchmark::DoNotOptimize(size);
    }
    report(state, data.size(), size);
}

void BM_zstd1_decompress(benchmark::State& state) {
    const auto data = input(state);
    std::vector<std::uint8_t> packed(ZSTD_compressBound(data.size()));
    packed.resize(ZSTD_compress(packed.data(), packed.size(), data.data(), data.size(), 1));
    std::vector<std::uint8_t> out(data.size());
    for (auto _ : state)
        benchmark::DoNotOptimize(
            ZSTD_decompress(out.data(), out.size(), packed.data(), packed.size()));
    report(state, data.size(), packed.size());
}

void BM_lossless_encode(benchmark::State& state) {
    const auto data = input(state);
    const TensorMeta meta{"bench", DType::f32, {kValues}};
    const CodecSpec spec = parse_codec_spec("lossless:level=" + std::to_string(state.range(1)));
    std::size_t size = 0;
    for (auto _ : state) {
        auto encoded = encode_tensor(spec, meta, data);
        size = encoded.payload.size();
        benchmark::DoNotOptimize(encoded.payload.data());
    }
    report(state, data.size(), size);
}

void BM_lossless_decode(benchmark::State& state) {
    const auto data = input(state);
    const TensorMeta meta{"bench", DType::f32, {kValues}};
    const auto encoded = encode_tensor(parse_codec_spec("lossless"), meta, data);
    std::vector<std::byte> out(data.size());
    for (auto _ : state) {
        decode_tensor(encoded.codec_id, meta, encoded.payload, out);
        benchmark::DoNotOptimize(out.data());
    }
    report(state, data.size(), encoded.payload.size());
}

}  // namespace

BENCHMARK(BM_zstd1_compress)->Arg(0)->Arg(40)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_lossless_encode)->ArgsProduct({{0, 40}, {1, -60}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_zstd1_decompress)->Arg(0)->Arg(40)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_lossless_decode)->Arg(0)->Arg(40)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
