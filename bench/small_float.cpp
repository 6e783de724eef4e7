// f32 <-> f16/bf16 array conversions on each path this CPU has (portable integer code, F16C,
// AVX-512 BF16, AVX2), 16M gradient-like values. Bytes processed = the float32 side.
// A path the CPU lacks is skipped with a message.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "bench_data.hpp"
#include "common/small_float.hpp"

namespace {

using namespace gradcodec;

constexpr std::size_t kValues = std::size_t{1} << 24;

void narrow(benchmark::State& state, ConversionPath path, SmallFloat type) {
    if (!cpu_supports(path)) {
        state.SkipWithError("this CPU lacks the path");
        return;
    }
    const auto& values = bench::gradient_like(kValues);
    std::vector<std::uint8_t> out(2 * kValues);
    for (auto _ : state) {
        benchmark::DoNotOptimize(narrow_floats_on(path, type, values, out.data()));
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kValues * 4));
}

void widen(benchmark::State& state, ConversionPath path, SmallFloat type) {
    if (!cpu_supports(path)) {
        state.SkipWithError("this CPU lacks the path");
        return;
    }
    const auto& values = bench::gradient_like(kValues);
    std::vector<std::uint8_t> halves(2 * kValues);
    narrow_floats(type, values, halves.data());
    std::vector<float> out(kValues);
    for (auto _ : state) {
        widen_halves_on(path, type, halves.data(), out);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kValues * 4));
}

BENCHMARK_CAPTURE(narrow, f16_portable, ConversionPath::portable, SmallFloat::f16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(narrow, f16_f16c, ConversionPath::f16c, SmallFloat::f16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(narrow, bf16_portable, ConversionPath::portable, SmallFloat::bf16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(narrow, bf16_avx512, ConversionPath::avx512_bf16, SmallFloat::bf16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(narrow, bf16_avx2, ConversionPath::avx2, SmallFloat::bf16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(widen, f16_portable, ConversionPath::portable, SmallFloat::f16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(widen, f16_f16c, ConversionPath::f16c, SmallFloat::f16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(widen, bf16_portable, ConversionPath::portable, SmallFloat::bf16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(widen, bf16_avx2, ConversionPath::avx2, SmallFloat::bf16)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
