// One large tensor (64 MB of float32, 16M gradient-like values) encoded and decoded through
// the public API on 1 and 2 threads (EncodeOptions/DecodeOptions::threads), for the codecs
// that split a tensor across threads. Rates are per wall-clock second (UseRealTime), since
// the point is what extra threads buy. Bytes processed = the float32 tensor's size.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench_data.hpp"
#include "gradcodec/codec.hpp"

namespace {

using namespace gradcodec;

constexpr std::size_t kValues = std::size_t{1} << 24;

TensorMeta meta() {
    return {"bench", DType::f32, {kValues}};
}

std::span<const std::byte> tensor_bytes() {
    return std::as_bytes(std::span<const float>(bench::gradient_like(kValues, 25)));
}

void encode(benchmark::State& state, const std::string& spec_text) {
    const CodecSpec spec = parse_codec_spec(spec_text);
    const EncodeOptions options{false, static_cast<unsigned>(state.range(0))};
    const auto data = tensor_bytes();
    for (auto _ : state) {
        EncodedTensor e = encode_tensor(spec, meta(), data, options);
        benchmark::DoNotOptimize(e.payload.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kValues * 4));
}

void decode(benchmark::State& state, const std::string& spec_text) {
    const EncodedTensor e = encode_tensor(parse_codec_spec(spec_text), meta(), tensor_bytes());
    const DecodeOptions options{static_cast<unsigned>(state.range(0))};
    std::vector<float> out(kValues);
    for (auto _ : state) {
        decode_tensor(e.codec_id, meta(), e.payload, std::as_writable_bytes(std::span<float>(out)),
                      options);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kValues * 4));
}

#define THREADS(b) b->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond)

THREADS(BENCHMARK_CAPTURE(encode, lossless, "lossless"));
THREADS(BENCHMARK_CAPTURE(encode, cast_bf16, "cast:to=bf16"));
THREADS(BENCHMARK_CAPTURE(encode, rangeq_8, "rangeq:bits=8"));
THREADS(BENCHMARK_CAPTURE(encode, topk_0_001, "topk:density=0.001"));
THREADS(BENCHMARK_CAPTURE(encode, fft_0_1, "fft:density=0.1"));
THREADS(BENCHMARK_CAPTURE(decode, lossless, "lossless"));
THREADS(BENCHMARK_CAPTURE(decode, rangeq_8, "rangeq:bits=8"));
THREADS(BENCHMARK_CAPTURE(decode, fft_0_1, "fft:density=0.1"));

}  // namespace

BENCHMARK_MAIN();
