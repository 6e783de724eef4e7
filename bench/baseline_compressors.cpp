// Encode and decode throughput of the comparison baselines (randomk, qsgd, terngrad, sign,
// onebit, natural, lowrank) on a 64 MB float32 tensor (16M Laplace values, shaped 4096 x 4096
// so that lowrank sees a matrix), through a compiled Codec into a reused buffer on one thread,
// as a training loop calls it. Bytes processed = the float32 tensor's size, both ways.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <string>
#include <vector>

#include "bench_data.hpp"
#include "gradcodec/codec.hpp"

namespace {

using namespace gradcodec;

constexpr std::uint64_t kSide = 4096;
constexpr std::size_t kValues = kSide * kSide;

TensorMeta meta() {
    return {"bench", DType::f32, {kSide, kSide}};
}

std::span<const std::byte> values() {
    return std::as_bytes(std::span<const float>(gradcodec::bench::gradient_like(kValues)));
}

void encode(benchmark::State& state, const std::string& spec) {
    const Codec codec = Codec::compile(spec);
    std::vector<std::uint8_t> out(codec.max_encoded_size(meta()));
    std::size_t size = 0;
    for (auto _ : state) {
        size = codec.encode_into(meta(), values(), out);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kValues * 4));
    state.counters["bits_per_value"] = 8.0 * static_cast<double>(size) / kValues;
}

void decode(benchmark::State& state, const std::string& spec) {
    const Codec codec = Codec::compile(spec);
    const std::vector<std::uint8_t> payload = codec.encode(meta(), values());
    std::vector<float> out(kValues);
    for (auto _ : state) {
        decode_tensor(codec.id(), meta(), payload, std::as_writable_bytes(std::span<float>(out)));
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kValues * 4));
}

#define BASELINE(name, spec)                                                           \
    BENCHMARK_CAPTURE(encode, name, std::string(spec))->Unit(benchmark::kMillisecond); \
    BENCHMARK_CAPTURE(decode, name, std::string(spec))->Unit(benchmark::kMillisecond)

BASELINE(randomk_1pct, "randomk:density=0.01,seed=1");
BASELINE(qsgd_4, "qsgd:levels=4,seed=1");
BASELINE(terngrad, "terngrad:seed=1");
BASELINE(sign, "sign");
BASELINE(onebit, "onebit");
BASELINE(natural, "natural:seed=1");
BASELINE(lowrank_4, "lowrank:rank=4,seed=1");
BASELINE(topk_1pct, "topk:density=0.01");  // the sparse baseline in the same run

}  // namespace

BENCHMARK_MAIN();
