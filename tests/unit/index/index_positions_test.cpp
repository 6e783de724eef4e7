#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "common/byte_io.hpp"
#include "expect_error.hpp"
#include "gradcodec/error.hpp"
#include "index/position_coder.hpp"
#include "index/position_coders.hpp"

using namespace gradcodec;
using gradcodec::testing::thrown_error;

namespace {

std::vector<std::uint64_t> random_subset(std::uint64_t n, std::uint64_t k, std::mt19937_64& rng) {
    // Floyd's algorithm: k distinct positions, each draw one step.
    std::vector<std::uint64_t> out;
    std::vector<char> seen(n, 0);
    for (std::uint64_t j = n - k; j < n; ++j) {
        const std::uint64_t t = rng() % (j + 1);
        const std::uint64_t pick = seen[t] ? j : t;
        seen[pick] = 1;
        out.push_back(pick);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::uint8_t> encode_with(PositionCoder c, const std::vector<std::uint64_t>& p,
                                      std::uint64_t n) {
    std::vector<std::uint8_t> bytes;
    ByteWriter w(bytes);
    encode_positions_with(c, p, n, w);
    return bytes;
}

std::vector<std::uint64_t> decode(const std::vector<std::uint8_t>& bytes, std::uint64_t n) {
    ByteReader r(bytes, "test positions");
    auto out = decode_positions(r, n);
    r.expect_end();
    return out;
}

}  // namespace

TEST_CASE("every position coder round-trips at densities from 1/n to 1", "[index]") {
    std::mt19937_64 rng(1);
    for (const std::uint64_t n : {1ull, 2ull, 7ull, 64ull, 1000ull, 100003ull}) {
        std::vector<std::uint64_t> ks = {0, 1, n / 1000, n / 100, n / 10, n / 2, n - 1, n};
        for (const std::uint64_t k : ks) {
            if (k > n) continue;
            const auto p = random_subset(n, k, rng);
            for (const auto c : {PositionCoder::bitmap, PositionCoder::rice_gaps,
                                 PositionCoder::elias_fano, PositionCoder::rice_blocks}) {
                INFO("n=" << n << " k=" << k << " coder=" << static_cast<int>(c));
                CHECK(decode(encode_with(c, p, n), n) == p);
            }
            std::vector<std::uint8_t> best;
            ByteWriter w(best);
            encode_positions(p, n, w);
            CHECK(decode(best, n) == p);
        }
    }
}

TEST_CASE("position coders round-trip clustered and edge positions", "[index]") {
    const std::uint64_t n = 1u << 20;
    std::vector<std::uint64_t> p;
    for (std::uint64_t i = 0; i < 300; ++i) p.push_back(i);          // a run at the start
    for (std::uint64_t i = 500000; i < 500010; ++i) p.push_back(i);  // a cluster
    p.push_back(n - 1);                                              // the last element
    for (const auto c : {PositionCoder::bitmap, PositionCoder::rice_gaps, PositionCoder::elias_fano,
                         PositionCoder::rice_blocks})
        CHECK(decode(encode_with(c, p, n), n) == p);
}

TEST_CASE("the encoder writes the exactly smallest coder", "[index]") {
    std::mt19937_64 rng(2);
    const std::uint64_t n = 200000;
    for (const std::uint64_t k : {1ull, 20ull, 200ull, 2000ull, 20000ull, 100000ull, 199999ull}) {
        const auto p = random_subset(n, k, rng);
        std::size_t smallest = SIZE_MAX;
        for (const auto c : {PositionCoder::bitmap, PositionCoder::rice_gaps,
                             PositionCoder::elias_fano, PositionCoder::rice_blocks})
            smallest = std::min(smallest, encode_with(c, p, n).size());
        std::vector<std::uint8_t> best;
        ByteWriter w(best);
        encode_positions(p, n, w);
        CHECK(best.size() == smallest);
        const PositionCosts costs = position_costs(p, n);
        CHECK(best.size() ==
              kPositionHeaderBytes +
                  std::min({costs.bitmap, costs.rice_gaps, costs.elias_fano, costs.rice_blocks}));
    }
}

TEST_CASE("the chosen coder is within 5% of log2 C(n,k) on uniform positions", "[index]") {
    std::mt19937_64 rng(3);
    const std::uint64_t n = 2'000'000;
    for (const double d : {0.1, 0.01, 0.001}) {
        const auto k = static_cast<std::uint64_t>(d * static_cast<double>(n));
        const auto p = random_subset(n, k, rng);
        const PositionCosts c = position_costs(p, n);
        const double bits =
            8.0 *
            static_cast<double>(std::min({c.bitmap, c.rice_gaps, c.elias_fano, c.rice_blocks}));
        INFO("density " << d << ": " << bits / static_cast<double>(k) << " bits per position");
        CHECK(bits <= 1.05 * log2_binomial(n, k));
    }
}

TEST_CASE("hostile position sections are refused", "[index]") {
    const std::uint64_t n = 1000;
    const std::vector<std::uint64_t> p = {3, 70, 500, 999};
    auto expect_damaged = [&](const std::vector<std::uint8_t>& bytes, std::uint64_t nn) {
        const auto e = thrown_error([&] { decode(bytes, nn); });
        CHECK(e.kind() == ErrorKind::damaged_stream);
    };
    for (const auto c : {PositionCoder::bitmap, PositionCoder::rice_gaps, PositionCoder::elias_fano,
                         PositionCoder::rice_blocks}) {
        const auto good = encode_with(c, p, n);
        INFO("coder " << static_cast<int>(c));
        // Truncation at every length.
        for (std::size_t len = 0; len < good.size(); ++len)
            expect_damaged(
                std::vector<std::uint8_t>(good.begin(), good.begin() + static_cast<long>(len)), n);
        // k larger than n, a huge k, an unknown coder, a wrong length.
        auto big_k = good;
        big_k[1] = 0xe9;
        big_k[2] = 0x03;  // k = 1001
        expect_damaged(big_k, n);
        auto huge_k = good;
        REQUIRE(huge_k.size() > 8);
        std::fill(huge_k.begin() + 1, huge_k.begin() + 9, std::uint8_t{0xff});
        expect_damaged(huge_k, n);
        auto coder = good;
        coder[0] = 9;
        expect_damaged(coder, n);
        // The same section against a smaller tensor: positions >= n.
        expect_damaged(good, 999);
        // Every single-bit flip is either refused or decodes to valid strictly increasing
        // positions below n: never a crash or an out-of-range position.
        for (std::size_t bit = 0; bit < 8 * good.size(); ++bit) {
            auto flipped = good;
            flipped[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
            try {
                const auto q = decode(flipped, n);
                for (std::size_t i = 0; i < q.size(); ++i) {
                    REQUIRE(q[i] < n);
                    if (i > 0) REQUIRE(q[i] > q[i - 1]);
                }
            } catch (const Error& e) {
                CHECK(e.kind() == ErrorKind::damaged_stream);
            }
        }
    }
    // Non-increasing positions in an Elias-Fano or Rice section cannot be encoded.
    std::vector<std::uint8_t> bytes;
    ByteWriter w(bytes);
    CHECK_THROWS_AS(encode_positions(std::vector<std::uint64_t>{5, 5}, n, w), Error);
}

TEST_CASE("log2 C(n,k) is the information bound", "[index]") {
    CHECK(log2_binomial(10, 0) == 0.0);
    CHECK(log2_binomial(4, 2) == Approx(std::log2(6.0)));
    CHECK(log2_binomial(1000, 1) == Approx(std::log2(1000.0)));
}

TEST_CASE("blocked Rice codes clustered positions below the uniform bound", "[index]") {
    // Dense rows among sparse ones, as large gradients cluster by row or channel.
    std::mt19937_64 rng(4);
    const std::uint64_t n = 1u << 20;
    std::vector<std::uint64_t> p;
    for (std::uint64_t i = 0; i < n; ++i) {
        const bool dense_row = (i / 4096) % 8 == 0;
        if (rng() % (dense_row ? 4 : 400) == 0) p.push_back(i);
    }
    const PositionCosts c = position_costs(p, n);
    CHECK(c.best == PositionCoder::rice_blocks);
    CHECK(8.0 * static_cast<double>(c.rice_blocks) < 0.95 * log2_binomial(n, p.size()));
    std::vector<std::uint8_t> bytes;
    ByteWriter w(bytes);
    encode_positions(p, n, w);
    CHECK(bytes[0] == 4);
    CHECK(decode(bytes, n) == p);
}

TEST_CASE("Rice parameters are the exact minimisers, whole and per block, on every vector path",
          "[index]") {
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 30; ++trial) {
        const std::uint64_t n = 1000 + rng() % 200000;
        auto p = random_subset(n, 1 + rng() % (n / 3), rng);
        if (trial >= 20) {
            // Gaps of up to 2^30 here and there: leaves whose gaps overflow 32-bit lane sums.
            std::uint64_t at = 0;
            for (auto& q : p) {
                at += rng() % 16 == 0 ? rng() % (std::uint64_t{1} << 30) : rng() % 64;
                q = at++;
            }
        }
        auto bits_with = [&](std::size_t b, std::size_t e, unsigned r) {
            std::uint64_t bits = 0;
            for (std::size_t i = b; i < e; ++i) {
                const std::uint64_t g = i == 0 ? p[0] : p[i] - p[i - 1] - 1;
                bits += (g >> r) + 1 + r;
            }
            return bits;
        };
        auto brute_best = [&](std::size_t b, std::size_t e) {
            std::uint64_t best = UINT64_MAX;
            for (unsigned r = 0; r < 40; ++r) best = std::min(best, bits_with(b, e, r));
            return best;
        };
        std::uint64_t best_blocked = UINT64_MAX;
        for (unsigned l = kRiceBlockLog2Min; l <= kRiceBlockLog2Max; ++l) {
            std::uint64_t total = 0;
            for (std::size_t b = 0; b < p.size(); b += std::size_t{1} << l)
                total += 6 + brute_best(b, std::min(p.size(), b + (std::size_t{1} << l)));
            best_blocked = std::min(best_blocked, total);
        }
        const std::uint64_t best_plain = brute_best(0, p.size());
        for (const VectorPath path : {VectorPath::portable, VectorPath::avx2, VectorPath::avx512}) {
            if (!cpu_supports(path)) continue;
            INFO("trial " << trial << " path " << static_cast<int>(path));
            const RiceCosts c = rice_costs(p, path);
            CHECK(c.bits == best_plain);
            CHECK(c.bits == bits_with(0, p.size(), c.parameter));
            CHECK(c.block_bits == best_blocked);
            CHECK(encode_rice_blocks(p, c.block_log2).size() == (c.block_bits + 7) / 8);
        }
    }
}
