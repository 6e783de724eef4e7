#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <map>
#include <numbers>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "codec/fft_candidates.hpp"
#include "codec/fft_spectrum.hpp"
#include "codec/frequency_codec.hpp"
#include "codec/frequency_selection.hpp"
#include "common/parallel.hpp"
#include "expect_error.hpp"
#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"
#include "select/weighted_prefix.hpp"
#include "transform/fft_backend.hpp"

using namespace gradcodec;
using gradcodec::testing::thrown_error;

namespace {

std::vector<float> gradient_like(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::student_t_distribution<float> heavy(3.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = 1e-3f * heavy(rng);
    return v;
}

std::span<const std::byte> bytes_of(const std::vector<float>& v) {
    return std::as_bytes(std::span<const float>(v));
}

TensorMeta meta_for(std::vector<std::uint64_t> shape) {
    return {"grad", DType::f32, std::move(shape)};
}

std::vector<float> round_trip(const std::string& spec, const TensorMeta& meta,
                              const std::vector<float>& x,
                              std::vector<std::uint8_t>* payload = nullptr) {
    const EncodedTensor e = encode_tensor(parse_codec_spec(spec), meta, bytes_of(x));
    std::vector<float> y(x.size());
    decode_tensor(e.codec_id, meta, e.payload, std::as_writable_bytes(std::span<float>(y)));
    if (payload != nullptr) *payload = e.payload;
    return y;
}

double rel_l2(const std::vector<float>& x, const std::vector<float>& y) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        num += (double(x[i]) - y[i]) * (double(x[i]) - y[i]);
        den += double(x[i]) * x[i];
    }
    return den == 0 ? std::sqrt(num) : std::sqrt(num / den);
}

// Naive reference of the fft codec with f32 values: per chunk DFT in double, rank every bin
// by |X|^2·chunk/length, keep the shortest prefix weighing >= target, inverse DFT.
std::vector<double> naive_fft_codec(const std::vector<float>& x, std::size_t chunk,
                                    double density) {
    const std::size_t n = x.size();
    struct Bin {
        std::size_t start, len, k;
        std::complex<double> v;
        double score;
        std::size_t order;
    };
    std::vector<Bin> bins;
    for (std::size_t start = 0; start < n; start += chunk) {
        const std::size_t len = std::min(chunk, n - start);
        for (std::size_t k = 0; k <= len / 2; ++k) {
            std::complex<double> s;
            for (std::size_t j = 0; j < len; ++j)
                s += double(x[start + j]) *
                     std::polar(1.0, -2 * std::numbers::pi * double(j * k % len) / double(len));
            bins.push_back(
                {start, len, k, s, std::norm(s) * double(chunk) / double(len), bins.size()});
        }
    }
    std::vector<Bin> ranked = bins;
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const Bin& a, const Bin& b) { return a.score > b.score; });
    const auto target = static_cast<std::size_t>(std::max(1.0, std::ceil(density * double(n))));
    std::vector<double> y(n, 0.0);
    std::size_t weight = 0;
    for (const Bin& b : ranked) {
        if (weight >= target) break;
        const bool real = b.k == 0 || (b.len % 2 == 0 && b.k == b.len / 2);
        weight += real ? 1 : 2;
        for (std::size_t j = 0; j < b.len; ++j) {
            const double angle = 2 * std::numbers::pi * double(j * b.k % b.len) / double(b.len);
            const double part =
                real ? b.v.real() * std::cos(angle) : 2 * (b.v * std::polar(1.0, angle)).real();
            y[b.start + j] += part / double(b.len);
        }
    }
    return y;
}

std::vector<double> naive_dct_codec(const std::vector<float>& x, std::size_t chunk,
                                    double density) {
    const std::size_t n = x.size();
    std::vector<double> c(n);
    for (std::size_t start = 0; start < n; start += chunk) {
        const std::size_t len = std::min(chunk, n - start);
        for (std::size_t k = 0; k < len; ++k) {
            double s = 0;
            for (std::size_t j = 0; j < len; ++j)
                s += x[start + j] *
                     std::cos(std::numbers::pi * (double(j) + 0.5) * double(k) / double(len));
            c[start + k] = s * std::sqrt((k == 0 ? 1.0 : 2.0) / double(len));
        }
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](auto a, auto b) { return std::abs(c[a]) > std::abs(c[b]); });
    const auto keep = static_cast<std::size_t>(std::max(1.0, std::ceil(density * double(n))));
    std::vector<double> kept(n, 0.0);
    for (std::size_t i = 0; i < std::min(keep, n); ++i) kept[order[i]] = c[order[i]];
    std::vector<double> y(n);
    for (std::size_t start = 0; start < n; start += chunk) {
        const std::size_t len = std::min(chunk, n - start);
        for (std::size_t j = 0; j < len; ++j) {
            double s = 0;
            for (std::size_t k = 0; k < len; ++k)
                s += kept[start + k] * std::sqrt((k == 0 ? 1.0 : 2.0) / double(len)) *
                     std::cos(std::numbers::pi * (double(j) + 0.5) * double(k) / double(len));
            y[start + j] = s;
        }
    }
    return y;
}

// The candidates append_candidates writes after `already` placeholder entries (kept in the
// result), as (bins, bits, values), into arrays pre-filled with a value no candidate has.
std::tuple<std::vector<std::uint64_t>, std::vector<std::uint32_t>, std::vector<std::uint64_t>>
compacted(VectorPath path, const BinRun& run, float floor, std::size_t already) {
    const std::size_t room = run.count + already + kCompactSlack;
    std::vector<std::uint64_t> bins(room, 7), values(room, 7);
    std::vector<std::uint32_t> bits(room, 7);
    const std::size_t size = append_candidates(path, run, std::bit_cast<std::uint32_t>(floor),
                                               {bins.data(), bits.data(), values.data()}, already);
    bins.resize(size);
    bits.resize(size);
    values.resize(size);
    return {bins, bits, values};
}

}  // namespace

TEST_CASE("fft and dct at density 1 with f32 values round trip within float rounding",
          "[fft][dct]") {
    for (const char* codec : {"fft", "dct"}) {
        for (std::size_t n : {1u, 2u, 3u, 5u, 64u, 97u, 1000u, 4096u, 4109u, 10007u}) {
            for (std::size_t chunk : {1u, 2u, 7u, 64u, 4096u}) {
                INFO(codec << " n " << n << " chunk " << chunk);
                const auto x = gradient_like(n, static_cast<unsigned>(n + chunk));
                const std::string spec =
                    std::string(codec) + ":density=1,values=f32,chunk=" + std::to_string(chunk);
                const auto y = round_trip(spec, meta_for({n}), x);
                CHECK(rel_l2(x, y) < 1e-6 * std::log2(double(chunk) + 2));
            }
        }
    }
}

TEST_CASE("the fft codec matches a naive DFT reference at small sizes", "[fft]") {
    for (std::size_t n : {1u, 2u, 3u, 13u, 40u, 97u, 130u}) {
        for (std::size_t chunk : {1u, 2u, 5u, 16u, 31u}) {
            for (double density : {0.05, 0.3, 0.7}) {
                INFO("n " << n << " chunk " << chunk << " density " << density);
                const auto x = gradient_like(n, static_cast<unsigned>(3 * n + chunk));
                const auto y = round_trip("fft:values=f32,density=" + std::to_string(density) +
                                              ",chunk=" + std::to_string(chunk),
                                          meta_for({n}), x);
                const auto want = naive_fft_codec(x, chunk, density);
                std::vector<float> wf(want.begin(), want.end());
                double norm = 0;
                for (float v : x) norm += double(v) * v;
                double err = 0;
                for (std::size_t i = 0; i < n; ++i) err += (y[i] - want[i]) * (y[i] - want[i]);
                CHECK(std::sqrt(err / std::max(norm, 1e-30)) < 1e-5);
            }
        }
    }
}

TEST_CASE("the dct codec matches a naive orthonormal DCT reference at small sizes", "[dct]") {
    for (std::size_t n : {1u, 2u, 3u, 13u, 40u, 97u, 130u}) {
        for (std::size_t chunk : {1u, 2u, 5u, 16u, 31u}) {
            for (double density : {0.05, 0.3, 0.7}) {
                INFO("n " << n << " chunk " << chunk << " density " << density);
                const auto x = gradient_like(n, static_cast<unsigned>(5 * n + chunk));
                const auto y = round_trip("dct:values=f32,density=" + std::to_string(density) +
                                              ",chunk=" + std::to_string(chunk),
                                          meta_for({n}), x);
                const auto want = naive_dct_codec(x, chunk, density);
                double norm = 0, err = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    norm += double(x[i]) * x[i];
                    err += (y[i] - want[i]) * (y[i] - want[i]);
                }
                CHECK(std::sqrt(err / std::max(norm, 1e-30)) < 1e-5);
            }
        }
    }
}

TEST_CASE("the fft codec keeps bins until their real scalars reach density times n", "[fft]") {
    for (std::size_t n : {10u, 97u, 1000u, 5000u}) {
        for (double density : {0.01, 0.1, 0.5}) {
            INFO("n " << n << " density " << density);
            const auto x = gradient_like(n, 11);
            std::vector<std::uint8_t> payload;
            round_trip("fft:values=f32,chunk=64,density=" + std::to_string(density), meta_for({n}),
                       x, &payload);
            const PayloadStats s = describe_payload(5, meta_for({n}), payload);
            CHECK(s.target_density == Approx(density));
            const std::uint64_t target = kept_scalar_target(density, n);
            // f32 values: 32 bits each, plus whatever fixed header the value section has.
            const auto scalars = static_cast<double>(s.value_bits) / 32.0;
            CHECK(scalars >= double(target));
            CHECK(scalars < double(target) + 2.0);
        }
    }
}

TEST_CASE("a weighted selection keeps the shortest ranked prefix reaching the target", "[fft]") {
    // scores ranked: 3 (9.0, single), 0 (8.0), 4 (8.0, tie: lower index 0 first), 1 (5.0 single), 2
    // (1.0)
    const std::vector<float> scores{8.0f, 5.0f, 1.0f, 9.0f, 8.0f};
    const std::vector<std::uint64_t> singles{1, 3};
    using V = ScratchVector<std::uint64_t>;
    CHECK(select_by_weight(scores, singles, 1) == V{3});
    CHECK(select_by_weight(scores, singles, 2) == V{0, 3});
    CHECK(select_by_weight(scores, singles, 3) == V{0, 3});
    CHECK(select_by_weight(scores, singles, 4) == V{0, 3, 4});
    CHECK(select_by_weight(scores, singles, 5) == V{0, 3, 4});
    CHECK(select_by_weight(scores, singles, 6) == V{0, 1, 3, 4});
    CHECK(select_by_weight(scores, singles, 7) == V{0, 1, 2, 3, 4});
    CHECK(select_by_weight(scores, singles, 100) == V{0, 1, 2, 3, 4});
    CHECK(select_by_weight({}, {}, 0).empty());
    // Without singles every coefficient weighs 2: ceil(target / 2) of them.
    CHECK(select_by_weight(scores, {}, 3) == V{0, 3});
}

TEST_CASE("a weighted selection agrees with a full ranking on random scores and ties", "[fft]") {
    std::mt19937 rng(17);
    for (int trial = 0; trial < 300; ++trial) {
        const std::size_t size = 1 + rng() % 60;
        std::vector<float> scores(size);
        for (auto& v : scores) v = static_cast<float>(rng() % 8);  // many ties
        std::vector<std::uint64_t> singles;
        for (std::uint64_t i = 0; i < size; ++i)
            if (rng() % 3 == 0) singles.push_back(i);
        const std::uint64_t total = 2 * size - singles.size();
        const std::uint64_t target = 1 + rng() % total;
        std::vector<std::uint64_t> order(size);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](auto a, auto b) { return scores[a] > scores[b]; });
        ScratchVector<std::uint64_t> want;
        std::uint64_t weight = 0;
        for (std::size_t i = 0; i < size && weight < target; ++i) {
            want.push_back(order[i]);
            weight += std::binary_search(singles.begin(), singles.end(), order[i]) ? 1 : 2;
        }
        std::sort(want.begin(), want.end());
        INFO("trial " << trial);
        CHECK(select_by_weight(scores, singles, target) == want);
    }
}

TEST_CASE("the AVX-512 and AVX2 weighted cuts find the portable one's cut", "[fft]") {
    // Patterns from few top digits and few middle digits, so that the members of the bucket
    // that holds the cut run long (the vector loops' ground) and tie often; odd lengths leave
    // each vector loop a tail.
    if (!cpu_supports(VectorPath::avx2)) SUCCEED("no AVX2 here");
    std::mt19937 rng(41);
    for (int trial = 0; trial < 200; ++trial) {
        const std::size_t size = rng() % 5000;
        std::vector<std::uint32_t> bits(size);
        for (auto& b : bits) {
            const auto r = static_cast<std::uint32_t>(rng());
            b = (0x3f0u + r % 3) << 20 | (r >> 8) % 4 << 10 | (r >> 16) % 1024;
        }
        std::vector<std::uint32_t> singles;
        for (const std::uint32_t b : bits)
            if (rng() % 8 == 0) singles.push_back(b);
        const std::uint64_t total = 2 * size - singles.size();
        if (total == 0) continue;
        const std::uint64_t target = 1 + rng() % total;
        const WeightCut want = weighted_cut(bits, singles, target, VectorPath::portable);
        for (const VectorPath path : {VectorPath::avx512, VectorPath::avx2}) {
            if (!cpu_supports(path)) continue;
            INFO("trial " << trial << " path " << static_cast<int>(path));
            const WeightCut got = weighted_cut(bits, singles, target, path);
            CHECK(got.bits == want.bits);
            CHECK(got.ties == want.ties);
        }
    }
}

// The full ranking by score descending, ties by lower index, cut where the weight reaches
// `target`; ascending indices.
ScratchVector<std::uint64_t> ranked_prefix(const std::vector<float>& scores,
                                           const std::vector<std::uint64_t>& singles,
                                           std::uint64_t target) {
    std::vector<std::uint64_t> order(scores.size());
    std::iota(order.begin(), order.end(), 0);
    const auto key = [&](std::uint64_t i) {
        std::uint32_t b;
        std::memcpy(&b, &scores[i], 4);
        return b & 0x7fffffffu;
    };
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return key(a) > key(b); });
    ScratchVector<std::uint64_t> want;
    std::uint64_t weight = 0;
    for (std::size_t i = 0; i < order.size() && weight < target; ++i) {
        want.push_back(order[i]);
        weight += std::binary_search(singles.begin(), singles.end(), order[i]) ? 1 : 2;
    }
    std::sort(want.begin(), want.end());
    return want;
}

TEST_CASE("a weighted selection over large spectra agrees with a full ranking on any thread count",
          "[fft]") {
    // Sizes around the sampling threshold (2^16 scores), spectra with real bins every 129 as an
    // FFT of chunks of 256 has, and scores that are continuous, coarse (runs of ties larger
    // than any sample expects), or hold NaN, which ranks first.
    std::mt19937 rng(29);
    std::student_t_distribution<float> heavy(3.0f);
    for (const std::size_t size : {std::size_t{40000}, std::size_t{65536}, std::size_t{150001}}) {
        std::vector<std::uint64_t> singles;
        for (std::uint64_t i = 0; i < size; i += 129) {
            singles.push_back(i);
            if (i + 128 < size) singles.push_back(i + 128);
        }
        const std::uint64_t total = 2 * size - singles.size();
        for (int kind = 0; kind < 3; ++kind) {
            std::vector<float> scores(size);
            for (auto& v : scores) {
                const float h = heavy(rng);
                v = kind == 1 ? static_cast<float>(rng() % 5) : h * h;
            }
            if (kind == 2) {
                for (int j = 0; j < 20; ++j) scores[rng() % size] = std::nanf("");
            }
            for (const double fraction : {0.0001, 0.01, 0.15, 0.5, 0.97}) {
                const auto target = std::max<std::uint64_t>(
                    1, static_cast<std::uint64_t>(fraction * static_cast<double>(total)));
                const ScratchVector<std::uint64_t> want = ranked_prefix(scores, singles, target);
                for (const unsigned threads : {1u, 4u}) {
                    const ThreadScope scope(threads);
                    INFO("size " << size << " kind " << kind << " fraction " << fraction
                                 << " threads " << threads);
                    CHECK(select_by_weight(scores, singles, target) == want);
                }
            }
        }
    }
}

TEST_CASE("the largest magnitude is the largest pattern with the sign cleared, NaN included",
          "[fft]") {
    std::mt19937 rng(5);
    for (const std::size_t size : {0, 1, 15, 16, 17, 33, 1000}) {
        std::vector<float> x(size);
        for (auto& v : x)
            v = std::ldexp(static_cast<float>(rng() % 1000) - 500.0f, -(int)(rng() % 40));
        for (int special = 0; special < 4; ++special) {
            if (size > 0 && special == 1) x[rng() % size] = -std::numeric_limits<float>::infinity();
            if (size > 0 && special == 2) x[rng() % size] = -std::nanf("");
            if (size > 0 && special == 3) x[size - 1] = -1e30f;
            std::uint32_t want = 0;
            for (const float v : x)
                want = std::max(want, std::bit_cast<std::uint32_t>(v) & 0x7fffffffu);
            INFO("size " << size << " special " << special);
            CHECK(std::bit_cast<std::uint32_t>(largest_magnitude(x)) == want);
        }
    }
}

namespace {

// Where two bin lists first differ, or "" where they are equal. A CHECK on the lists
// themselves would print every bin of a large spectrum when it fails: minutes of output.
std::string first_difference(std::span<const std::uint64_t> got,
                             std::span<const std::uint64_t> want) {
    const std::size_t common = std::min(got.size(), want.size());
    for (std::size_t i = 0; i < common; ++i) {
        if (got[i] != want[i]) {
            return "entry " + std::to_string(i) + " is bin " + std::to_string(got[i]) +
                   ", expected " + std::to_string(want[i]);
        }
    }
    if (got.size() == want.size()) return "";
    return std::to_string(got.size()) + " bins, expected " + std::to_string(want.size());
}

// The bins the whole-spectrum path keeps: every chunk transformed and scored (the tail's
// scores scaled), then ranked by select_by_weight.
ScratchVector<std::uint64_t> whole_spectrum_selection(const std::vector<float>& x,
                                                      std::uint32_t chunk, std::uint64_t target) {
    const SpectrumLayout s(ChunkLayout(x.size(), chunk));
    const FftBackend& fft = default_fft_backend();
    std::vector<std::complex<float>> spectrum(s.stride);
    std::vector<float> scores(s.bin_count());
    const ChunkLayout& c = s.chunks;
    for (std::uint64_t j = 0; j < c.full; ++j) {
        fft.forward_r2c({c.chunk, 1, c.chunk, s.stride}, x.data() + j * c.chunk, spectrum.data());
        score_chunk(spectrum.data(), s.bins, 1.0f, scores.data() + j * s.bins);
    }
    if (c.tail != 0) {
        fft.forward_r2c({c.tail, 1, c.tail, s.tail_bins}, x.data() + c.full * c.chunk,
                        spectrum.data());
        score_chunk(spectrum.data(), s.tail_bins, s.tail_score_scale(),
                    scores.data() + c.full * s.bins);
    }
    return select_by_weight(scores, s.real_bins(), target);
}

}  // namespace

TEST_CASE("fft selecting while it transforms keeps the bins of the whole-spectrum ranking",
          "[fft][threads]") {
    // On one thread and on four (pieces of chunks collected apart, then joined), where the
    // sampled floor holds; and the same payload either way, whichever path ran. Inputs:
    // noise; steps (spectra full of exact zeros and equal bins, more ties than a sample
    // expects); noise with a few loud chunks a sample may miss.
    std::mt19937 rng(41);
    std::student_t_distribution<float> heavy(3.0f);
    struct Case {
        std::uint32_t chunk;
        std::size_t n;
    };
    std::map<unsigned, int> fused;  // cases that took the fused path, by thread count
    for (const Case c :
         {Case{256, 300037}, Case{255, 261200}, Case{16, 17000}, Case{64, 1 << 20}}) {
        for (int kind = 0; kind < 3; ++kind) {
            std::vector<float> x(c.n);
            for (std::size_t i = 0; i < c.n; ++i) {
                x[i] = kind == 1 ? static_cast<float>((i / 40) % 3) : 1e-3f * heavy(rng);
            }
            if (kind == 2) {
                for (std::size_t i = 0; i < c.n; i += 37 * c.chunk + 5) x[i] *= 1e4f;
            }
            const TensorMeta meta{"t", DType::f32, {c.n}};
            const SpectrumLayout layout(ChunkLayout(c.n, c.chunk));
            for (const double density : {0.0005, 0.15, 0.7}) {
                const std::string spec =
                    "fft:chunk=" + std::to_string(c.chunk) + ",density=" + std::to_string(density);
                INFO(spec << " kind " << kind);
                const std::uint64_t target = kept_scalar_target(density, c.n);
                const auto whole = whole_spectrum_selection(x, c.chunk, target);
                for (const unsigned threads : {1u, 4u}) {
                    INFO(threads << " threads");
                    const ThreadScope scope(threads);
                    FftSelection selection;
                    if (!select_while_transforming(layout, x, target, selection)) continue;
                    ++fused[threads];
                    CHECK(first_difference(selection.kept_bins(), whole) == "");
                    CHECK(selection.largest == largest_magnitude(x));
                }
                const auto encode_on = [&](unsigned threads) {
                    return encode_tensor(parse_codec_spec(spec), meta,
                                         std::as_bytes(std::span<const float>(x)),
                                         EncodeOptions{false, threads})
                        .payload;
                };
                CHECK(encode_on(1) == encode_on(4));
            }
        }
    }
    // The pieces fall back exactly where one thread does, and the fused path ran in most cases.
    CHECK(fused[4] == fused[1]);
    CHECK(fused[1] > 20);
}

TEST_CASE("the AVX-512 and AVX2 candidate compactions keep what the portable one keeps", "[fft]") {
    if (!cpu_supports(VectorPath::avx2)) SUCCEED("no AVX2 here");
    std::mt19937 rng(3);
    for (const std::size_t count :
         {std::size_t{0}, std::size_t{5}, std::size_t{16}, std::size_t{129}, std::size_t{1000}}) {
        std::vector<float> scores(count);
        std::vector<std::complex<float>> spectrum(count);
        for (std::size_t k = 0; k < count; ++k) {
            scores[k] = static_cast<float>(rng() % 100);
            if (rng() % 50 == 0) scores[k] = std::nanf("");
            spectrum[k] = {static_cast<float>(rng()), -static_cast<float>(rng())};
        }
        for (const float floor : {0.0f, 50.0f, 99.0f, 1000.0f}) {
            const auto run = [&](VectorPath path) {
                return compacted(path, {scores.data(), spectrum.data(), count, 1000}, floor, 5);
            };
            INFO("count " << count << " floor " << floor);
            const auto portable = run(VectorPath::portable);
            CHECK(std::get<0>(portable).size() >= 5);
            for (const VectorPath path : {VectorPath::avx512, VectorPath::avx2})
                if (cpu_supports(path)) CHECK(run(path) == portable);
        }
    }
}

TEST_CASE("candidate compaction without scores ranks bins by score_chunk's squared magnitudes",
          "[fft]") {
    std::mt19937 rng(5);
    std::normal_distribution<float> normal;
    for (const std::size_t count : {std::size_t{0}, std::size_t{9}, std::size_t{129}}) {
        std::vector<std::complex<float>> spectrum(count);
        for (auto& v : spectrum) v = {normal(rng), normal(rng)};
        if (count > 3) spectrum[3] = {std::nanf(""), 1.0f};
        if (count > 5) spectrum[5] = {std::numeric_limits<float>::infinity(), 0.0f};
        std::vector<float> scores(count);
        score_chunk(spectrum.data(), count, 1.0f, scores.data());
        for (const float floor : {0.0f, 0.5f, 2.0f}) {
            const auto run = [&](VectorPath path, const float* given) {
                return compacted(path, {given, spectrum.data(), count, 0}, floor, 0);
            };
            INFO("count " << count << " floor " << floor);
            const auto expected = run(VectorPath::portable, scores.data());
            CHECK(run(VectorPath::portable, nullptr) == expected);
            for (const VectorPath path : {VectorPath::avx512, VectorPath::avx2})
                if (cpu_supports(path)) CHECK(run(path, nullptr) == expected);
        }
    }
}

TEST_CASE("the AVX-512 and AVX2 keeps of candidates keep what the portable one keeps", "[fft]") {
    if (!cpu_supports(VectorPath::avx2)) SUCCEED("no AVX2 here");
    std::mt19937 rng(4);
    for (const std::size_t count :
         {std::size_t{0}, std::size_t{7}, std::size_t{16}, std::size_t{131}, std::size_t{1000}}) {
        std::vector<std::uint64_t> bins(count), values(count);
        std::vector<std::uint32_t> bits(count);
        for (std::size_t j = 0; j < count; ++j) {
            bins[j] = (3 * j + (rng() % 3 == 0 ? 1 : 0)) | (rng() % 5 == 0 ? kRealBin : 0);
            bits[j] = static_cast<std::uint32_t>(rng() % 40);
            values[j] = (std::uint64_t{rng()} << 32) | rng();
        }
        for (const std::uint32_t cut : {0u, 20u, 39u, 50u}) {
            for (const std::uint64_t ties : {0u, 1u, 7u, 100000u}) {
                const auto run = [&](VectorPath path) {
                    std::vector<std::uint64_t> kept(count + kCompactSlack, 7);
                    std::vector<float> kept_values(2 * count + kCompactSlack, 7.0f);
                    KeptArrays out{kept.data(), kept_values.data()};
                    keep_candidates(path, {bins.data(), bits.data(), values.data(), count}, cut,
                                    ties, out);
                    kept.resize(out.bin_count);
                    kept_values.resize(out.value_count);
                    // Compared as bit patterns: NaN payloads must survive too.
                    std::vector<std::uint32_t> value_bits(kept_values.size());
                    std::transform(kept_values.begin(), kept_values.end(), value_bits.begin(),
                                   [](float v) { return std::bit_cast<std::uint32_t>(v); });
                    return std::pair(kept, value_bits);
                };
                INFO("count " << count << " cut " << cut << " ties " << ties);
                const auto portable = run(VectorPath::portable);
                for (const VectorPath path : {VectorPath::avx512, VectorPath::avx2})
                    if (cpu_supports(path)) CHECK(run(path) == portable);
            }
        }
    }
}

TEST_CASE("frequency codecs keep the shape, dtype, empty and scalar tensors", "[fft][dct]") {
    for (const char* codec : {"fft", "dct"}) {
        INFO(codec);
        for (const auto& shape :
             std::vector<std::vector<std::uint64_t>>{{}, {0}, {3, 0, 2}, {1}, {3, 5, 7}}) {
            TensorMeta meta{"t", DType::f32, shape};
            const auto x = gradient_like(meta.element_count(), 2);
            std::vector<std::uint8_t> payload;
            const auto y =
                round_trip(std::string(codec) + ":density=1,values=f32", meta, x, &payload);
            CHECK(rel_l2(x, y) < 1e-6);
            const PayloadStats s =
                describe_payload(std::string(codec) == "fft" ? 5 : 6, meta, payload);
            CHECK(s.position_bits + s.value_bits == 8 * payload.size());
            CHECK(s.target_density == 1.0);
        }
        for (DType dt : {DType::f16, DType::bf16, DType::f64}) {
            TensorMeta meta{"t", dt, {4, 33}};
            std::vector<std::byte> in(meta.byte_count());
            for (std::size_t i = 0; i < in.size(); ++i)
                in[i] = std::byte(i * 37 % 61);  // finite for all
            if (dt == DType::f64) {
                for (std::size_t i = 0; i < 132; ++i) {
                    const double v = std::sin(double(i));
                    std::memcpy(in.data() + 8 * i, &v, 8);
                }
            }
            const EncodedTensor e =
                encode_tensor(parse_codec_spec(std::string(codec) + ":density=0.5"), meta, in);
            std::vector<std::byte> out(meta.byte_count());
            decode_tensor(e.codec_id, meta, e.payload, out);
            CHECK(out.size() == in.size());
        }
    }
}

TEST_CASE("frequency codecs refuse non-finite values naming the tensor", "[fft][dct]") {
    for (const char* codec : {"fft", "dct"}) {
        std::vector<float> x(100, 1.0f);
        x[42] = std::numeric_limits<float>::quiet_NaN();
        const auto e = thrown_error(
            [&] { encode_tensor(parse_codec_spec(codec), meta_for({100}), bytes_of(x)); });
        CHECK(e.kind() == ErrorKind::bad_input);
        CHECK_THAT(e.what(), Catch::Contains("grad") && Catch::Contains("42"));
    }
}

TEST_CASE("frequency codec specs reject bad keys and values with the valid range", "[fft][dct]") {
    for (const char* bad : {"fft:density=0", "fft:density=1.5", "fft:chunk=0", "dct:chunk=99999999",
                            "fft:select=random", "dct:colour=blue"}) {
        INFO(bad);
        const auto e = thrown_error([&] { validate_codec_spec(parse_codec_spec(bad)); });
        CHECK(e.kind() == ErrorKind::usage);
    }
    CHECK_NOTHROW(validate_codec_spec(parse_codec_spec("fft:density=0.15,bits=10,chunk=4096")));
    CHECK_NOTHROW(validate_codec_spec(parse_codec_spec("dct:density=0.01,values=f16,select=dgc")));
}

TEST_CASE("frequency decoders reject every truncation and damaged headers", "[fft][dct]") {
    for (const char* codec : {"fft", "dct"}) {
        INFO(codec);
        const TensorMeta meta = meta_for({300});
        const auto x = gradient_like(300, 9);
        const EncodedTensor e = encode_tensor(
            parse_codec_spec(std::string(codec) + ":density=0.2,chunk=64"), meta, bytes_of(x));
        std::vector<float> y(300);
        auto out = std::as_writable_bytes(std::span<float>(y));
        for (std::size_t len = 0; len < e.payload.size(); ++len) {
            INFO("length " << len);
            CHECK_THROWS_AS(decode_tensor(e.codec_id, meta, std::span(e.payload).first(len), out),
                            Error);
        }
        auto longer = e.payload;
        longer.push_back(0);
        CHECK_THROWS_AS(decode_tensor(e.codec_id, meta, longer, out), Error);
        auto flagged = e.payload;
        flagged[0] = 1;
        CHECK_THROWS_AS(decode_tensor(e.codec_id, meta, flagged, out), Error);
        auto zero_chunk = e.payload;
        std::fill(zero_chunk.begin() + 1, zero_chunk.begin() + 5, std::uint8_t{0});
        CHECK_THROWS_AS(decode_tensor(e.codec_id, meta, zero_chunk, out), Error);
        // Random bytes never crash: they decode or throw Error.
        std::mt19937 rng(5);
        for (int trial = 0; trial < 200; ++trial) {
            auto noisy = e.payload;
            noisy[rng() % noisy.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
            try {
                decode_tensor(e.codec_id, meta, noisy, out);
            } catch (const Error&) {
            }
        }
    }
}

TEST_CASE("frequency codecs with f16 and 10-bit rangeq values stay near the f32 result",
          "[fft][dct]") {
    for (const char* codec : {"fft", "dct"}) {
        const auto x = gradient_like(5000, 21);
        const auto exact =
            round_trip(std::string(codec) + ":density=1,values=f32", meta_for({5000}), x);
        const auto half =
            round_trip(std::string(codec) + ":density=1,values=f16", meta_for({5000}), x);
        const auto ranged = round_trip(std::string(codec) + ":density=1", meta_for({5000}), x);
        INFO(codec);
        CHECK(rel_l2(x, exact) < 1e-5);
        CHECK(rel_l2(x, half) < 1e-3);    // f16: 11 significant bits
        CHECK(rel_l2(x, ranged) < 2e-2);  // 10-bit range floats
    }
}

TEST_CASE("the estimating selectors keep about density times n scalars", "[fft][dct]") {
    for (const char* codec : {"fft", "dct"}) {
        for (const char* select : {"sidco", "dgc"}) {
            INFO(codec << " select=" << select);
            const std::size_t n = 20000;
            const auto x = gradient_like(n, 23);
            std::vector<std::uint8_t> payload;
            const auto y =
                round_trip(std::string(codec) + ":density=0.05,values=f32,select=" + select,
                           meta_for({n}), x, &payload);
            const PayloadStats s =
                describe_payload(std::string(codec) == "fft" ? 5 : 6, meta_for({n}), payload);
            const double scalars = static_cast<double>(s.value_bits - 8) / 32.0;
            CHECK(scalars > 0.5 * 0.05 * n);
            CHECK(scalars < 2.0 * 0.05 * n);
            CHECK(rel_l2(x, y) < 1.0);
        }
    }
}
