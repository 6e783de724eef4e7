// rangeq encode/decode throughput on a 64 MB float32 tensor (16M values) of Laplace-
// distributed, gradient-like values, through the public codec API on one thread.
// Bytes processed = the float32 tensor's size, both ways.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "gradcodec/codec.hpp"

namespace {

using namespace gradcodec;

constexpr std::size_t kValues = std::size_t{1} << 24;

const std::vector<float>& laplace_tensor() {
    static const std::vector<float> values = [] {
        std::mt19937 rng(12345);
        std::exponential_distribution<float> magnitude(1000.0f);  // mean |g| = 1e-3
        std::bernoulli_distribution negative(0.5);
        std::vector<float> v(kValues);
        for (float& x : v) x = negative(rng) ? -magnitude(rng) : magnitude(rng);
        return v;
    }();
    return values;
}

TensorMeta meta() {
    return {"bench", DType::f32, {kValues}};
}

std::span<const std::byte> as_bytes(const std::vector<float>& v) {
    return std::as_bytes(std::span<const float>(v));
}

void encode(benchmark::State& state, const std::string& spec_text) {
    const CodecSpec spec = parse_codec_spec(spec_text);
    const auto& values = laplace_tensor();
    for (auto _ : state) {
        EncodedTensor e = encode_tensor(spec, meta(), as_bytes(values));
        benchmark::DoNotOptimize(e.payload.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kValues * 4));
}

void decode(benchmark::State& state, const std::string& spec_text) {
    const CodecSpec spec = parse_codec_spec(spec_text);
    const auto& values = laplace_tensor();
    const EncodedTensor e = encode_tensor(spec, meta(), as_bytes(values));
    std::vector<float> out(kValues);
    for (auto _ : state) {
        decode_tensor(e.codec_id, meta(), e.payload, std::as_writable_bytes(std::span<float>(out)));
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kValues * 4));
}

BENCHMARK_CAPTURE(encode, bits8, std::string("rangeq:bits=8"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(decode, bits8, std::string("rangeq:bits=8"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(encode, bits8_m3, std::string("rangeq:bits=8,mantissa=3"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(encode, bits10, std::string("rangeq:bits=10"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(decode, bits10, std::string("rangeq:bits=10"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(encode, bits16, std::string("rangeq:bits=16"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(decode, bits16, std::string("rangeq:bits=16"))->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
