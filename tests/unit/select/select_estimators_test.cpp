#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "fit/incomplete_gamma.hpp"
#include "select/dgc.hpp"
#include "select/sidco.hpp"
#include "select/topk.hpp"
#include "test_data.hpp"

using namespace gradcodec;
using Catch::Detail::Approx;

namespace {

std::vector<float> laplace(std::size_t n, double b, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> e(1.0 / b);
    std::bernoulli_distribution sign(0.5);
    std::vector<float> x(n);
    for (auto& v : x) v = static_cast<float>(sign(rng) ? e(rng) : -e(rng));
    return x;
}

double ratio(const SidcoThreshold& t, std::size_t n, double density) {
    return static_cast<double>(t.count) / (density * static_cast<double>(n));
}

}  // namespace

TEST_CASE("single-stage SIDCo-E matches the Laplace quantile", "[select][sidco]") {
    const auto x = laplace(500000, 0.01, 1);
    for (const double d : {0.1, 0.01, 0.001}) {
        const SidcoThreshold t = sidco_threshold(x, {Distribution::exp, d, 1});
        CHECK(t.threshold == Approx(0.01 * std::log(1 / d)).epsilon(0.02));
        CHECK(ratio(t, x.size(), d) == Approx(1.0).margin(0.15));
    }
}

TEST_CASE("single-stage SIDCo gamma matches the gamma quantile", "[select][sidco]") {
    std::mt19937_64 rng(2);
    std::gamma_distribution<float> g(0.6f, 0.5f);
    std::vector<float> x(500000);
    for (auto& v : x) v = g(rng) * ((rng() & 1) ? 1.0f : -1.0f);
    for (const double d : {0.1, 0.01, 0.001}) {
        const SidcoThreshold t = sidco_threshold(x, {Distribution::gamma, d, 1});
        const double truth = 0.5 * inverse_regularized_upper_gamma(0.6, d);
        CHECK(t.threshold == Approx(truth).epsilon(0.03));
    }
}

TEST_CASE("single-stage SIDCo GP matches the generalized Pareto quantile", "[select][sidco]") {
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<float> x(500000);
    const double xi = 0.15, sigma = 0.02;
    for (auto& v : x) v = static_cast<float>(sigma * (std::pow(1 - u(rng), -xi) - 1) / xi);
    for (const double d : {0.1, 0.01, 0.001}) {
        const SidcoThreshold t = sidco_threshold(x, {Distribution::gpareto, d, 1});
        CHECK(t.threshold == Approx(sigma / xi * (std::pow(d, -xi) - 1)).epsilon(0.06));
    }
}

TEST_CASE("SIDCo stages=auto brings heavy tails within [0.8, 1.25] of the target",
          "[select][sidco]") {
    const auto x = testing::student_t_values(1'000'000, 4);
    for (const Distribution dist :
         {Distribution::exp, Distribution::gpareto, Distribution::gamma}) {
        for (const double d : {0.01, 0.001}) {
            INFO("dist=" << static_cast<int>(dist) << " density=" << d);
            const SidcoThreshold t = sidco_threshold(x, {dist, d, 0});
            CHECK(ratio(t, x.size(), d) >= 0.8);
            CHECK(ratio(t, x.size(), d) <= 1.25);
            const Selection s = select_sidco(x, {dist, d, 0});
            CHECK(s.indices.size() == t.count);
        }
    }
    // One stage overshoots on |t3| at 1e-3: the reason for more stages.
    CHECK(ratio(sidco_threshold(x, {Distribution::exp, 0.001, 1}), x.size(), 0.001) > 2.0);
}

TEST_CASE("SIDCo on a GP tail without finite variance stays finite", "[select][sidco]") {
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<float> x(200000);
    for (auto& v : x) v = static_cast<float>((std::pow(1 - u(rng), -0.7) - 1) / 0.7);
    for (const int stages : {1, 3, 0}) {
        const SidcoThreshold t = sidco_threshold(x, {Distribution::gpareto, 0.01, stages});
        CHECK(std::isfinite(t.threshold));
        CHECK(t.count > 0);
        CHECK(t.count < x.size() / 10);
    }
}

TEST_CASE("SIDCo handles all-zero, constant, tiny and subnormal tensors", "[select][sidco]") {
    const float sub = 1e-41f;
    const std::vector<std::vector<float>> cases = {{},
                                                   {0.0f},
                                                   {2.0f},
                                                   {1.0f, -1.0f},
                                                   std::vector<float>(1000, 0.0f),
                                                   std::vector<float>(1000, 0.5f),
                                                   std::vector<float>(1000, sub),
                                                   {sub, 2 * sub, 0.0f, -3 * sub}};
    for (const auto& x : cases) {
        for (const Distribution dist :
             {Distribution::exp, Distribution::gpareto, Distribution::gamma}) {
            for (const int stages : {0, 1, 4}) {
                const SidcoThreshold t = sidco_threshold(x, {dist, 0.01, stages});
                CHECK(std::isfinite(t.threshold));
                CHECK(t.threshold >= 0);
                CHECK(t.count <= x.size());
                CHECK(select_sidco(x, {dist, 0.01, stages}).indices.size() == t.count);
            }
        }
    }
    // Equal values cannot be split by a threshold: a constant tensor keeps nothing.
    CHECK(sidco_threshold(std::vector<float>(1000, 0.5f), {Distribution::exp, 0.01, 0}).count == 0);
    CHECK(sidco_threshold(std::vector<float>(1000, 0.0f), {Distribution::gamma, 0.01, 0}).count ==
          0);
}

TEST_CASE("DGC keeps between 0.8k and 1.3k, or exactly the top k", "[select][dgc]") {
    const auto x = testing::student_t_values(300000, 6);
    for (const double d : {0.1, 0.01, 0.001}) {
        const std::uint64_t k = topk_count(x.size(), d);
        const Selection s = select_dgc(x, {d, 0.01, 9});
        INFO("density " << d << " kept " << s.indices.size());
        CHECK(static_cast<double>(s.indices.size()) >= 0.8 * static_cast<double>(k));
        CHECK(static_cast<double>(s.indices.size()) <= 1.3 * static_cast<double>(k));
        CHECK(std::is_sorted(s.indices.begin(), s.indices.end()));
        for (const auto i : s.indices) REQUIRE(std::fabs(x[i]) >= s.threshold);
    }
}

TEST_CASE("DGC is reproducible for a given seed", "[select][dgc]") {
    const auto x = testing::student_t_values(200000, 8);
    const Selection a = select_dgc(x, {0.001, 0.01, 42});
    const Selection b = select_dgc(x, {0.001, 0.01, 42});
    CHECK(a.indices == b.indices);
    CHECK(a.threshold == b.threshold);
}

TEST_CASE("DGC falls back to the exact top-k when too many pass", "[select][dgc]") {
    std::vector<float> x(10000, 1.0f);
    const Selection s = select_dgc(x, {0.01, 0.01, 1});
    CHECK(s.indices == select_topk(x, 100).indices);
    // Tiny tensors: the sample is the whole tensor.
    CHECK(select_dgc(std::vector<float>{3.0f}, {0.5, 0.01, 0}).indices.size() == 1);
    CHECK(select_dgc(std::vector<float>{}, {0.5, 0.01, 0}).indices.empty());
    CHECK(select_dgc(std::vector<float>(50, 0.0f), {0.1, 0.01, 0}).indices.size() == 5);
}

TEST_CASE("DGC's sample spans the whole tensor, at least ceil(2/density) elements",
          "[select][dgc]") {
    for (const std::uint64_t n : {1ull, 39ull, 288ull, 3000ull, 18432ull, 1000003ull}) {
        for (const double d : {0.1, 0.01, 0.001}) {
            for (const std::uint64_t seed : {0ull, 5ull, 77ull}) {
                const auto p = dgc_sample_positions(n, {d, 0.01, seed});
                const double wanted =
                    std::max(std::ceil(0.01 * static_cast<double>(n)), std::ceil(2.0 / d));
                const auto samples =
                    static_cast<std::uint64_t>(std::min(wanted, static_cast<double>(n)));
                INFO("n " << n << " density " << d << " seed " << seed);
                REQUIRE(p.size() == samples);
                CHECK(std::adjacent_find(p.begin(), p.end(), std::greater_equal<>()) == p.end());
                CHECK(p.back() < n);
                // Evenly spread: the first and the last sample lie within one stride of the ends.
                const std::uint64_t stride = (n + samples - 1) / samples;
                CHECK(p.front() < stride);
                CHECK(p.back() + stride >= n);
                CHECK(p == dgc_sample_positions(n, {d, 0.01, seed}));
            }
        }
    }
}

TEST_CASE("DGC keeps within 0.8 and 1.3 times the target count on small tensors", "[select][dgc]") {
    // Sizes of the sample CNN's biases and weights; 1.3 * ceil(density * n) would admit 5 of 32
    // (1.56 times the target 3.2) at density 0.1.
    for (const std::size_t n : {32u, 64u, 288u, 10240u, 18432u}) {
        const auto x = testing::student_t_values(n, n);
        for (const double d : {0.1, 0.01}) {
            const std::uint64_t k = topk_count(n, d);
            const double target = d * static_cast<double>(n);
            for (std::uint64_t seed = 0; seed < 20; ++seed) {
                const Selection s = select_dgc(x, {d, 0.01, seed});
                const auto kept = static_cast<double>(s.indices.size());
                INFO("n " << n << " density " << d << " seed " << seed << " kept " << kept);
                CHECK(kept >= 0.8 * static_cast<double>(k));
                CHECK(kept <= std::max(static_cast<double>(k), std::floor(1.3 * target)));
            }
        }
    }
}
