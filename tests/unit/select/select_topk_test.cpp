#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "common/parallel.hpp"
#include "common/scratch.hpp"
#include "select/magnitude_scan.hpp"
#include "select/threshold.hpp"
#include "select/topk.hpp"

using namespace gradcodec;

namespace {

// The reference: a stable sort by magnitude pattern, descending, then the first k indices.
ScratchVector<std::uint64_t> brute_topk(const std::vector<float>& x, std::uint64_t k) {
    ScratchVector<std::uint64_t> order(x.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) {
        return magnitude_bits(x[a]) > magnitude_bits(x[b]);
    });
    order.resize(k);
    std::sort(order.begin(), order.end());
    return order;
}

void check_against_brute(const std::vector<float>& x, std::uint64_t k) {
    const Selection s = select_topk(x, k);
    const auto expected = brute_topk(x, k);
    REQUIRE(s.indices == expected);
    if (k > 0) {
        float smallest = std::numeric_limits<float>::infinity();
        for (auto i : expected) smallest = std::min(smallest, std::fabs(x[i]));
        CHECK(std::bit_cast<std::uint32_t>(s.threshold) == magnitude_bits(smallest));
    }
}

}  // namespace

TEST_CASE("k is ceil(density * n), at least one and at most n", "[select][topk]") {
    CHECK(topk_count(25'000'000, 0.001) == 25'000);
    CHECK(topk_count(1000, 0.0001) == 1);
    CHECK(topk_count(1000, 0.0015) == 2);
    CHECK(topk_count(10, 1.0) == 10);
    CHECK(topk_count(0, 0.5) == 0);
    CHECK(topk_count(3, 0.5) == 2);
}

TEST_CASE("a top-k matches a brute-force sort on random tensors", "[select][topk]") {
    std::mt19937_64 rng(42);
    for (int trial = 0; trial < 60; ++trial) {
        const std::size_t n = 1 + rng() % 5000;
        std::vector<float> x(n);
        std::student_t_distribution<float> t3(3.0f);
        for (auto& v : x) v = t3(rng) * 1e-3f;
        const std::uint64_t k = 1 + rng() % n;
        INFO("n=" << n << " k=" << k);
        check_against_brute(x, k);
    }
}

TEST_CASE("a top-k of ties keeps the lower indices", "[select][topk]") {
    std::vector<float> x = {1, -2, 2, 0.5f, -2, 2, 1};
    CHECK(select_topk(x, 2).indices == ScratchVector<std::uint64_t>{1, 2});
    CHECK(select_topk(x, 4).indices == ScratchVector<std::uint64_t>{1, 2, 4, 5});
    CHECK(select_topk(x, 5).indices == ScratchVector<std::uint64_t>{0, 1, 2, 4, 5});
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 30; ++trial) {
        std::vector<float> y(1 + rng() % 3000);
        for (auto& v : y) v = static_cast<float>(static_cast<int>(rng() % 5) - 2);
        check_against_brute(y, 1 + rng() % y.size());
    }
}

TEST_CASE("a top-k of all-equal values keeps the first k", "[select][topk]") {
    std::vector<float> x(10000, -3.5f);
    const Selection s = select_topk(x, 123);
    REQUIRE(s.indices.size() == 123);
    CHECK(s.indices.front() == 0);
    CHECK(s.indices.back() == 122);
    CHECK(s.threshold == 3.5f);
}

TEST_CASE("a top-k of zeros and negative zeros treats them as equal", "[select][topk]") {
    std::vector<float> x(100, 0.0f);
    for (std::size_t i = 0; i < x.size(); i += 2) x[i] = -0.0f;
    x[50] = 1e-3f;
    CHECK(select_topk(x, 3).indices == ScratchVector<std::uint64_t>{0, 1, 50});
    check_against_brute(x, 60);
}

TEST_CASE("a top-k orders subnormals below normals and by value", "[select][topk]") {
    const float tiny = std::numeric_limits<float>::denorm_min();
    std::vector<float> x = {tiny,  3 * tiny, -2 * tiny, 0.0f, std::numeric_limits<float>::min(),
                            -tiny, 1e-40f,   -1e-41f};
    for (std::uint64_t k = 1; k <= x.size(); ++k) check_against_brute(x, k);
    CHECK(select_topk(x, 2).indices == ScratchVector<std::uint64_t>{4, 6});
}

TEST_CASE("a top-k ranks NaN above infinity and infinity above numbers", "[select][topk]") {
    std::vector<float> x = {1.0f, std::numeric_limits<float>::quiet_NaN(), -INFINITY, 2.0f};
    CHECK(select_topk(x, 1).indices == ScratchVector<std::uint64_t>{1});
    CHECK(select_topk(x, 2).indices == ScratchVector<std::uint64_t>{1, 2});
}

TEST_CASE("a top-k of k = 0 or an empty tensor keeps nothing", "[select][topk]") {
    std::vector<float> x = {1, 2};
    CHECK(select_topk(x, 0).indices.empty());
    CHECK(select_topk(std::vector<float>{}, 5).indices.empty());
    CHECK(select_topk(x, 9).indices.size() == 2);
}

TEST_CASE("a top-k with many values in the k-th bucket takes the whole-tensor path",
          "[select][topk]") {
    // Values sharing their top 16 bits: more than a quarter of the tensor is a candidate. The
    // tensor is larger than the 16K elements that select in place.
    std::mt19937_64 rng(3);
    std::vector<float> x(20000);
    for (auto& v : x)
        v = std::bit_cast<float>(0x3f800000u | static_cast<std::uint32_t>(rng() % 65536));
    for (std::uint64_t k : {1ull, 77ull, 10000ull, 19999ull}) check_against_brute(x, k);
}

TEST_CASE("a small k on a large tensor is the exact top-k, whatever its sample suggests",
          "[select][topk]") {
    // Above 2^20 values a small k is first sought above a floor read from a sample of the
    // tensor; each case below must still give the brute-force answer, on one thread and four.
    std::mt19937_64 rng(11);
    const std::size_t n = (std::size_t{1} << 20) + 17;
    std::student_t_distribution<float> t3(3.0f);
    std::vector<std::vector<float>> tensors;
    auto& dense = tensors.emplace_back(n);  // typical gradients: the sample's floor holds
    for (auto& v : dense) v = t3(rng) * 1e-3f;
    auto& levels = tensors.emplace_back(n);  // few distinct magnitudes: ties at the cut
    for (auto& v : levels) v = static_cast<float>(static_cast<int>(rng() % 9) - 4);
    auto& hidden = tensors.emplace_back(n, 0.0f);  // the large values lie between the slices
    for (std::size_t i = 0; i < n; ++i) hidden[i] = t3(rng) * 1e-6f;
    for (std::size_t i = 3000; i < 9000; ++i) hidden[i] = 1.0f + static_cast<float>(i % 7);
    auto& columns = tensors.emplace_back(n);  // a row-major matrix with zero columns
    for (std::size_t i = 0; i < n; ++i) columns[i] = i % 1024 < 512 ? 0.0f : t3(rng);
    tensors.emplace_back(n, 2.5f);  // all equal: every element reaches any floor
    for (std::size_t t = 0; t < tensors.size(); ++t) {
        for (const std::uint64_t k : {1ull, 700ull, 16000ull}) {
            const auto expected = brute_topk(tensors[t], k);
            for (const unsigned threads : {1u, 4u}) {
                INFO("tensor " << t << " k=" << k << " threads=" << threads);
                const ThreadScope scope(threads);
                CHECK(select_topk(tensors[t], k).indices == expected);
            }
        }
    }
}

TEST_CASE("the threshold selector keeps exactly |x| > T", "[select][threshold]") {
    std::vector<float> x = {0.5f, -0.5f, 0.25f, -1.0f, 0.0f, 0.5000001f};
    CHECK(select_above(x, 0.5f).indices == ScratchVector<std::uint64_t>{3, 5});
    CHECK(select_above(x, 0.0f).indices == ScratchVector<std::uint64_t>{0, 1, 2, 3, 5});
    CHECK(select_above(x, INFINITY).indices.empty());
    std::mt19937_64 rng(5);
    std::vector<float> y(4099);
    std::normal_distribution<float> g;
    for (auto& v : y) v = g(rng);
    const Selection s = select_above(y, 1.5f);
    ScratchVector<std::uint64_t> expected;
    for (std::size_t i = 0; i < y.size(); ++i)
        if (std::fabs(y[i]) > 1.5f) expected.push_back(i);
    CHECK(s.indices == expected);
    CHECK(count_at_least(y, bits_above(1.5f)) == expected.size());
}

TEST_CASE("a top-k that carries its kept values carries exactly x at the kept indices",
          "[select][topk]") {
    std::mt19937 rng(31);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (const std::size_t n : {100u, 5000u, 200000u}) {
        std::vector<float> x(n);
        for (auto& v : x) v = normal(rng);
        for (const double d : {0.3, 0.1, 0.001}) {
            const Selection s = select_topk(x, topk_count(n, d));
            INFO("n " << n << " density " << d);
            if (s.values.empty()) continue;  // values are optional
            REQUIRE(s.values.size() == s.indices.size());
            for (std::size_t i = 0; i < s.indices.size(); ++i)
                REQUIRE(std::bit_cast<std::uint32_t>(s.values[i]) ==
                        std::bit_cast<std::uint32_t>(x[s.indices[i]]));
        }
    }
}

TEST_CASE("a top-k streamed in pieces selects what select_topk selects on the whole tensor",
          "[select][topk]") {
    std::mt19937_64 rng(23);
    const std::size_t n = 300'007;
    std::student_t_distribution<float> t3(3.0f);
    std::vector<std::vector<float>> tensors;
    auto& dense = tensors.emplace_back(n);
    for (auto& v : dense) v = t3(rng) * 1e-3f;
    auto& levels = tensors.emplace_back(n);  // few distinct magnitudes: ties at every prune
    for (auto& v : levels) v = static_cast<float>(static_cast<int>(rng() % 9) - 4);
    auto& rising = tensors.emplace_back(n);  // the largest come last: the floor keeps rising
    for (std::size_t i = 0; i < n; ++i) rising[i] = static_cast<float>(i) * (i % 2 ? 1.0f : -1.0f);
    auto& falling = tensors.emplace_back(n);  // the largest come first
    for (std::size_t i = 0; i < n; ++i) falling[i] = static_cast<float>(n - i);
    tensors.emplace_back(n, 2.5f);            // all equal
    std::vector<float> special = tensors[0];  // NaN above infinity above numbers
    for (std::size_t i = 70'000; i < n; i += 40'000)
        special[i] = std::numeric_limits<float>::infinity();
    for (std::size_t i = 90'001; i < n; i += 50'000)
        special[i] = std::numeric_limits<float>::quiet_NaN();
    special[5] = -0.0f;
    tensors.push_back(std::move(special));
    const std::vector<std::vector<std::size_t>> cuttings = {
        {n}, {1, 65'535, 65'537, 168'934}, {100'000, 0, 200'007}};
    for (std::size_t t = 0; t < tensors.size(); ++t) {
        for (const std::uint64_t k :
             {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{700}, std::uint64_t{16'000},
              std::uint64_t{100'000}, std::uint64_t{n}}) {
            const Selection whole = select_topk(tensors[t], k);
            for (const auto& cuts : cuttings) {
                INFO("tensor " << t << " k=" << k << " pieces " << cuts.size());
                TopkStream stream(k);
                std::size_t first = 0;
                for (const std::size_t count : cuts) {
                    stream.add(std::span<const float>(tensors[t]).subspan(first, count), first);
                    first += count;
                }
                const Selection streamed = stream.finish();
                CHECK(streamed.indices == whole.indices);
                CHECK(std::bit_cast<std::uint32_t>(streamed.threshold) ==
                      std::bit_cast<std::uint32_t>(whole.threshold));
                REQUIRE(streamed.values.size() == streamed.indices.size());
                for (std::size_t j = 0; j < streamed.indices.size(); ++j) {
                    CHECK(std::bit_cast<std::uint32_t>(streamed.values[j]) ==
                          std::bit_cast<std::uint32_t>(tensors[t][streamed.indices[j]]));
                }
            }
        }
    }
}

TEST_CASE("a streamed top-k reports the first non-finite value it meets", "[select][topk]") {
    std::vector<float> x(200'000, 1.0f);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 1000);
    x[150'000] = std::numeric_limits<float>::infinity();
    x[160'000] = std::numeric_limits<float>::quiet_NaN();
    TopkStream stream(1);
    // After the first 131072 values the floor is the largest seen so far; the infinity, the
    // first non-finite value, is still taken.
    CHECK_FALSE(stream.add(std::span<const float>(x).first(140'000), 0).has_value());
    CHECK(stream.add(std::span<const float>(x).subspan(140'000), 140'000) == 150'000u);
    CHECK(std::isnan(stream.finish().values.at(0)));
}
