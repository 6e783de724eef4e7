// Container overhead: writing and reading a stream of many lossless-coded tensor records,
// without the codec cost (payloads are prepared once).
#include <benchmark/benchmark.h>

#include "bench_data.hpp"
#include "gradcodec/gradcodec.hpp"

using namespace gradcodec;

namespace {

std::vector<TensorRecord> records(std::size_t count, std::size_t values_each) {
    const auto& values = bench::gradient_like(values_each);
    const TensorMeta meta{"t", DType::f32, {values_each}};
    const auto encoded =
        encode_tensor(parse_codec_spec("lossless"), meta, std::as_bytes(std::span(values)));
    std::vector<TensorRecord> out;
    for (std::size_t i = 0; i < count; ++i) {
        out.push_back({"/step_" + std::to_string(i) + "/fc.weight",
                       DType::f32,
                       {values_each},
                       {},
                       encoded.codec_id,
                       encoded.spec,
                       encoded.payload});
    }
    return out;
}

void BM_stream_write(benchmark::State& state) {
    const auto recs =
        records(static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)));
    std::size_t bytes = 0;
    for (auto _ : state) {
        VectorSink sink;
        StreamWriter writer(sink);
        for (const auto& r : recs) writer.write(r);
        writer.finish();
        bytes = sink.bytes.size();
        benchmark::DoNotOptimize(sink.bytes.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
    state.counters["records/s"] =
        benchmark::Counter(double(recs.size()), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_stream_read(benchmark::State& state) {
    const auto recs =
        records(static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)));
    VectorSink sink;
    StreamWriter writer(sink);
    for (const auto& r : recs) writer.write(r);
    writer.finish();
    for (auto _ : state) {
        SpanSource source(sink.bytes);
        StreamReader reader(source);
        while (auto r = reader.next()) benchmark::DoNotOptimize(r->index());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * sink.bytes.size()));
    state.counters["records/s"] =
        benchmark::Counter(double(recs.size()), benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

// {records, values per tensor}: many small tensors, and a few large ones.
BENCHMARK(BM_stream_write)
    ->Args({1000, 256})
    ->Args({16, 1 << 20})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_stream_read)
    ->Args({1000, 256})
    ->Args({16, 1 << 20})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_MAIN();
