// Speed and size of the threshold-sparsified codec on 25M heavy-tailed floats (Student t3,
// the tail shape of real gradients), one core. Run with --benchmark_min_time=0.2.
// Counters: positions bits per kept value against log2 C(n,k) (bound_ratio), stream bytes.
#include <benchmark/benchmark.h>

#include <random>
#include <span>
#include <vector>

#include "gradcodec/codec.hpp"
#include "index/position_coder.hpp"
#include "select/dgc.hpp"
#include "select/sidco.hpp"
#include "select/topk.hpp"

using namespace gradcodec;

namespace {

constexpr std::size_t kElements = 25'000'000;

const std::vector<float>& gradient() {
    static const std::vector<float> x = [] {
        std::mt19937_64 rng(2024);
        std::student_t_distribution<float> t(3);
        std::vector<float> v(kElements);
        for (auto& e : v) e = t(rng) * 1e-3f;
        return v;
    }();
    return x;
}

double density_of(const benchmark::State& state) {
    return 1.0 / static_cast<double>(state.range(0));
}

void set_speed(benchmark::State& state) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * kElements * 4);
}

void BM_TopkSelect(benchmark::State& state) {
    const auto& x = gradient();
    const std::uint64_t k = topk_count(x.size(), density_of(state));
    for (auto _ : state) benchmark::DoNotOptimize(select_topk(x, k));
    set_speed(state);
}
BENCHMARK(BM_TopkSelect)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_DgcSelect(benchmark::State& state) {
    const auto& x = gradient();
    for (auto _ : state) benchmark::DoNotOptimize(select_dgc(x, {density_of(state), 0.01, 1}));
    set_speed(state);
}
BENCHMARK(BM_DgcSelect)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

// range(1): distribution; range(2): stages (0 = auto).
void BM_SidcoSelect(benchmark::State& state) {
    const auto& x = gradient();
    const SidcoParams p{static_cast<Distribution>(state.range(1)), density_of(state),
                        static_cast<int>(state.range(2))};
    std::uint64_t kept = 0;
    for (auto _ : state) {
        const Selection s = select_sidco(x, p);
        kept = s.indices.size();
        benchmark::DoNotOptimize(s);
    }
    state.counters["achieved_over_target"] =
        static_cast<double>(kept) / (p.density * static_cast<double>(kElements));
    set_speed(state);
}
BENCHMARK(BM_SidcoSelect)
    ->Args({1000, 1, 1})
    ->Args({1000, 1, 0})
    ->Args({100, 1, 0})
    ->Args({1000, 2, 0})
    ->Args({1000, 3, 0})
    ->Unit(benchmark::kMillisecond);

const char* const kSpecs[] = {"topk:density=0.001",
                              "dgc:density=0.001",
                              "sidco:dist=exp,density=0.001",
                              "sidco:dist=exp,density=0.001,stages=1",
                              "topk:density=0.01",
                              "topk:density=0.1"};

void BM_SparseEncode(benchmark::State& state) {
    const auto& x = gradient();
    const CodecSpec spec = parse_codec_spec(kSpecs[state.range(0)]);
    const TensorMeta meta{"grad", DType::f32, {kElements}};
    std::size_t bytes = 0;
    for (auto _ : state) {
        const EncodedTensor e = encode_tensor(spec, meta, std::as_bytes(std::span<const float>(x)));
        bytes = e.payload.size();
        benchmark::DoNotOptimize(e);
    }
    state.SetLabel(kSpecs[state.range(0)]);
    state.counters["payload_bytes"] = static_cast<double>(bytes);
    set_speed(state);
}
BENCHMARK(BM_SparseEncode)->DenseRange(0, 5)->Unit(benchmark::kMillisecond);

void BM_SparseDecode(benchmark::State& state) {
    const auto& x = gradient();
    const TensorMeta meta{"grad", DType::f32, {kElements}};
    const EncodedTensor e = encode_tensor(parse_codec_spec(kSpecs[state.range(0)]), meta,
                                          std::as_bytes(std::span<const float>(x)));
    std::vector<float> out(kElements);
    for (auto _ : state) {
        decode_tensor(e.codec_id, meta, e.payload, std::as_writable_bytes(std::span<float>(out)));
        benchmark::DoNotOptimize(out.data());
    }
    state.SetLabel(kSpecs[state.range(0)]);
    set_speed(state);
}
BENCHMARK(BM_SparseDecode)->Arg(0)->Arg(4)->Arg(5)->Unit(benchmark::kMillisecond);

// Positions of the top-k set, chosen coder against the information bound.
void BM_PositionBits(benchmark::State& state) {
    const auto& x = gradient();
    const Selection s = select_topk(x, topk_count(x.size(), density_of(state)));
    const double k = static_cast<double>(s.indices.size());
    std::vector<std::uint8_t> bytes;
    for (auto _ : state) {
        bytes.clear();
        ByteWriter w(bytes);
        encode_positions(s.indices, x.size(), w);
    }
    const double bound = log2_binomial(x.size(), s.indices.size());
    state.counters["bits_per_position"] = 8.0 * static_cast<double>(bytes.size()) / k;
    state.counters["bound_per_position"] = bound / k;
    state.counters["bound_ratio"] = 8.0 * static_cast<double>(bytes.size()) / bound;
    state.counters["coder"] = bytes[0];
}
BENCHMARK(BM_PositionBits)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
