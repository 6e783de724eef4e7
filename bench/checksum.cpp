// XXH3-64, the format's record checksum, on each build this CPU runs: the baseline (SSE2 on
// x86-64) and AVX2. Two sizes: 256 KiB, a payload piece still in cache, and 64 MiB, a payload
// read back from memory. A build the CPU lacks is skipped with a message.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "bench_data.hpp"
#include "common/cpu_features.hpp"
#include "format/checksum.hpp"

namespace {

using namespace gradcodec;

void hash(benchmark::State& state, const ChecksumImpl* build, bool runs_here) {
    if (!runs_here) {
        state.SkipWithError("this CPU lacks the instruction set");
        return;
    }
    const auto size = static_cast<std::size_t>(state.range(0));
    const auto& values = bench::gradient_like(size / sizeof(float));
    std::vector<std::uint8_t> bytes(size);
    std::memcpy(bytes.data(), values.data(), size);
    for (auto _ : state) benchmark::DoNotOptimize(build->hash(bytes.data(), bytes.size()));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * size));
}

constexpr std::int64_t kInCache = std::int64_t{256} << 10;
constexpr std::int64_t kFromMemory = std::int64_t{64} << 20;

BENCHMARK_CAPTURE(hash, baseline, &kChecksumBaseline, true)->Arg(kInCache)->Arg(kFromMemory);
#if defined(GRADCODEC_CHECKSUM_AVX2)
BENCHMARK_CAPTURE(hash, avx2, &kChecksumAvx2, cpu_has_avx2())->Arg(kInCache)->Arg(kFromMemory);
#endif

}  // namespace

BENCHMARK_MAIN();
