#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <random>
#include <vector>

#include "codec/frequency_selection.hpp"
#include "common/scratch.hpp"
#include "device_buffer.hpp"
#include "radix_select.hpp"
#include "select/topk.hpp"

using namespace gradcodec;

namespace {

// Gaussian values rounded to a coarse grid, so many magnitudes tie, with some exact zeros.
std::vector<float> tied_values(std::size_t n, unsigned seed, float grid) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = std::round(dist(rng) / grid) * grid;
    return v;
}

// In the CPU selectors' vector type, so the two compare directly.
ScratchVector<std::uint64_t> device_select(const std::vector<float>& x,
                                           const cuda::WeightRule& rule, std::uint64_t target) {
    DeviceBuffer<float> scores(x);
    DeviceBuffer<std::uint64_t> out(x.size());
    const std::uint64_t k =
        cuda::select_by_weight_on_device(scores.get(), x.size(), rule, target, out.get());
    const std::vector<std::uint64_t> kept = out.host(k);
    return {kept.begin(), kept.end()};
}

}  // namespace

TEST_CASE("the device top-k equals select_topk, ties to the lower index", "[gpu][select]") {
    std::mt19937 rng(7);
    for (int round = 0; round < 40; ++round) {
        const std::size_t n = std::uniform_int_distribution<std::size_t>(1, 300000)(rng);
        const float grid = round % 2 == 0 ? 0.25f : 1e-6f;
        const std::vector<float> x = tied_values(n, static_cast<unsigned>(round), grid);
        for (const double density : {0.0001, 0.01, 0.3, 1.0}) {
            const std::uint64_t k = topk_count(n, density);
            INFO("n " << n << " k " << k << " grid " << grid);
            const Selection cpu = select_topk(x, k);
            CHECK(device_select(x, {}, k) == cpu.indices);
            // The cut pattern is select_topk's threshold.
            DeviceBuffer<float> scores(x);
            DeviceBuffer<std::uint64_t> out(x.size());
            std::uint32_t cut = 0;
            cuda::select_by_weight_on_device(scores.get(), x.size(), {}, k, out.get(), &cut);
            CHECK(cut == std::bit_cast<std::uint32_t>(cpu.threshold));
        }
    }
}

TEST_CASE("the device weighted select equals select_by_weight on fft bin weights",
          "[gpu][select]") {
    std::mt19937 rng(11);
    for (int round = 0; round < 30; ++round) {
        const std::uint64_t chunk = std::uniform_int_distribution<std::uint64_t>(1, 600)(rng);
        const std::uint64_t n = std::uniform_int_distribution<std::uint64_t>(1, 200000)(rng);
        const std::uint64_t full = n / chunk, tail = n % chunk;
        const std::uint64_t bins = chunk / 2 + 1;
        const std::uint64_t count = full * bins + (tail != 0 ? tail / 2 + 1 : 0);
        std::vector<std::uint64_t> singles;
        const auto add = [&](std::uint64_t first, std::uint64_t len) {
            singles.push_back(first);
            if (len % 2 == 0) singles.push_back(first + len / 2);
        };
        for (std::uint64_t c = 0; c < full; ++c) add(c * bins, chunk);
        if (tail != 0) add(full * bins, tail);
        std::vector<float> scores = tied_values(count, static_cast<unsigned>(100 + round), 0.5f);
        for (auto& s : scores) s = s * s;
        const cuda::WeightRule rule{bins, full, chunk, tail};
        REQUIRE(cuda::total_weight(rule, count) == 2 * count - singles.size());
        for (const double density : {0.001, 0.15, 0.9, 1.5}) {
            const auto target = static_cast<std::uint64_t>(density * static_cast<double>(n)) + 1;
            INFO("chunk " << chunk << " n " << n << " target " << target);
            CHECK(device_select(scores, rule, target) == select_by_weight(scores, singles, target));
        }
    }
}
