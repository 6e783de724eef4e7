#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "expect_error.hpp"
#include "fit/distribution.hpp"
#include "fit/incomplete_gamma.hpp"
#include "fit/ks_distance.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/fit.hpp"
#include "test_data.hpp"

using namespace gradcodec;
using Catch::Detail::Approx;
using gradcodec::testing::thrown_error;

TEST_CASE("the regularised incomplete gamma matches its closed forms", "[fit][gamma]") {
    for (const double x : {1e-6, 0.01, 0.3, 1.0, 2.5, 7.0, 30.0, 120.0}) {
        INFO("x=" << x);
        CHECK(regularized_upper_gamma(1.0, x) == Approx(std::exp(-x)).epsilon(1e-13));
        CHECK(regularized_upper_gamma(0.5, x) == Approx(std::erfc(std::sqrt(x))).epsilon(1e-12));
        CHECK(regularized_upper_gamma(3.0, x) ==
              Approx(std::exp(-x) * (1 + x + x * x / 2)).epsilon(1e-12));
        CHECK(regularized_lower_gamma(2.0, x) + regularized_upper_gamma(2.0, x) == Approx(1.0));
    }
}

TEST_CASE("the inverse incomplete gamma gives known quantiles", "[fit][gamma]") {
    // chi-square(1) 95%: 1.959963984540054^2 = 3.841458820694124; gamma(1/2) is chi2(1) / 2.
    CHECK(inverse_regularized_upper_gamma(0.5, 0.05) == Approx(1.920729410347062).epsilon(1e-12));
    // a = 1 is the exponential: -ln q.
    for (const double q : {0.5, 0.1, 1e-3, 1e-9})
        CHECK(inverse_regularized_upper_gamma(1.0, q) == Approx(-std::log(q)).epsilon(1e-12));
    // chi-square(2k) is 2 * gamma(k): chi2(4) 99.9% = 18.46682695290317.
    CHECK(2 * inverse_regularized_upper_gamma(2.0, 1e-3) ==
          Approx(18.46682695290317).epsilon(1e-10));
    CHECK(inverse_regularized_upper_gamma(2.0, 1.0) == 0.0);
    CHECK(std::isinf(inverse_regularized_upper_gamma(2.0, 0.0)));
}

TEST_CASE("the inverse incomplete gamma inverts Q over a wide range of shapes", "[fit][gamma]") {
    for (const double a : {0.01, 0.05, 0.2, 0.5, 0.9, 1.0, 1.7, 4.0, 30.0, 500.0, 1e4}) {
        for (const double q : {0.9, 0.5, 0.25, 0.01, 1e-3, 1e-6, 1e-12}) {
            INFO("a=" << a << " q=" << q);
            const double x = inverse_regularized_upper_gamma(a, q);
            REQUIRE(std::isfinite(x));
            CHECK(regularized_upper_gamma(a, x) == Approx(q).epsilon(1e-9));
        }
    }
}

TEST_CASE("the exponential fit's quantile is mean * ln(1/p)", "[fit]") {
    TailStats s;
    s.count = 4;
    s.sum = 8;
    const DistFit f = fit_exp(s);
    CHECK(tail_quantile(f, 0.01) == Approx(2 * std::log(100.0)));
    CHECK(fitted_cdf(f, 2.0) == Approx(1 - std::exp(-1.0)));
}

TEST_CASE("GP moment fits recover the shape and guard the edge cases", "[fit]") {
    // Samples of GP(xi = 0.2, sigma = 1) by inversion.
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<float> x(400000);
    for (auto& v : x) v = static_cast<float>((std::pow(1 - u(rng), -0.2) - 1) / 0.2);
    const DistFit f = fit_gpareto(tail_stats(x, -1));
    CHECK(f.shape == Approx(0.2).margin(0.03));
    CHECK(f.scale == Approx(1.0).epsilon(0.05));
    const double truth = (std::pow(1e-3, -0.2) - 1) / 0.2;
    CHECK(tail_quantile(f, 1e-3) == Approx(truth).epsilon(0.1));
    // Zero variance: a point mass at the mean, whose quantile is the value itself.
    std::vector<float> same(10, 2.0f);
    const DistFit p = fit_gpareto(tail_stats(same, -1));
    CHECK(tail_quantile(p, 0.01) == Approx(2.0));
    // xi near 0 uses the exponential limit and stays finite.
    DistFit e{Distribution::gpareto, 1e-12, 3.0, 0};
    CHECK(tail_quantile(e, 0.1) == Approx(3 * std::log(10.0)));
    // A negative shape has a finite upper end sigma / |xi|.
    DistFit neg{Distribution::gpareto, -0.5, 1.0, 0};
    CHECK(tail_quantile(neg, 1e-9) < 2.0);
    CHECK(fitted_cdf(neg, 2.5) == 1.0);
}

TEST_CASE("the gamma fit recovers shape and scale and leaves zeros out", "[fit]") {
    std::mt19937_64 rng(13);
    std::gamma_distribution<float> g(0.5f, 2.0f);
    std::vector<float> x(400000);
    for (auto& v : x) v = g(rng);
    for (std::size_t i = 0; i < 1000; ++i) x[i * 400] = 0.0f;  // 0.25% zeros
    const DistFit f = fit_gamma(log_stats(x), x.size());
    CHECK(f.shape == Approx(0.5).epsilon(0.05));
    CHECK(f.scale == Approx(2.0).epsilon(0.05));
    CHECK(f.zero_fraction == Approx(0.0025));
    CHECK(fitted_cdf_below(f, 0.0) == 0.0);
    CHECK(fitted_cdf(f, 0.0) == Approx(0.0025));
    const DistFit none = fit_gamma(log_stats(std::vector<float>(5, 0.0f)), 5);
    CHECK(tail_quantile(none, 0.01) == 0.0);
}

TEST_CASE("the KS distance is small for a true model and large for a wrong one", "[fit]") {
    std::mt19937_64 rng(17);
    std::exponential_distribution<float> e(1.0f);
    std::vector<float> x(50000);
    for (auto& v : x) v = e(rng);
    std::sort(x.begin(), x.end());
    CHECK(ks_distance(x, {Distribution::exp, 0, 1.0, 0}) < 0.01);
    CHECK(ks_distance(x, {Distribution::exp, 0, 3.0, 0}) > 0.3);
    // Ties: a sample of one repeated value against a point mass there is a perfect fit.
    std::vector<float> same(100, 1.0f);
    CHECK(ks_distance(same, {Distribution::gpareto, INFINITY, 1.0, 0}) == 0.0);
}

TEST_CASE("fit_tensor reports params, KS, thresholds and the exact top-k threshold", "[fit]") {
    const std::vector<float> x = testing::student_t_values(100000, 19);
    const FitReport r = fit_tensor(
        x, {Distribution::exp, Distribution::gpareto, Distribution::gamma}, {0.01, 0.001});
    CHECK(r.elements == x.size());
    REQUIRE(r.fits.size() == 3);
    CHECK(r.fits[0].params.size() == 1);
    CHECK(r.fits[1].params[0].first == "shape");
    CHECK(r.fits[2].params.size() == 3);
    for (const auto& f : r.fits) {
        CHECK(f.ks > 0);
        CHECK(f.ks < 1);
        REQUIRE(f.thresholds.size() == 2);
        for (const auto& t : f.thresholds) {
            CHECK(t.threshold > 0);
            CHECK(t.achieved / t.density > 0.5);
            CHECK(t.achieved / t.density < 2.0);
        }
    }
    REQUIRE(r.topk.size() == 2);
    std::vector<float> a(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) a[i] = std::fabs(x[i]);
    std::sort(a.begin(), a.end());
    CHECK(r.topk[1].threshold == a[a.size() - 100]);
}

TEST_CASE("fit_tensor handles degenerate tensors and refuses bad input", "[fit]") {
    const std::vector<Distribution> all{Distribution::exp, Distribution::gpareto,
                                        Distribution::gamma};
    CHECK(fit_tensor(std::vector<float>{}, all, {0.01}).fits.empty());
    for (const std::vector<float>& x :
         {std::vector<float>(1000, 0.0f), std::vector<float>(1000, -0.25f),
          std::vector<float>{3.0f}, std::vector<float>(64, 1e-42f)}) {
        const FitReport r = fit_tensor(x, all, {0.1, 0.01});
        for (const auto& f : r.fits) {
            for (const auto& t : f.thresholds) {
                CHECK(std::isfinite(t.threshold));
                CHECK(t.achieved <= 1.0);
            }
        }
    }
    const auto e = thrown_error([&] {
        fit_tensor(std::vector<float>{1.0f, NAN}, all, {0.01}, {0, "layer1"});
    });
    CHECK(e.kind() == ErrorKind::bad_input);
    CHECK_THAT(e.what(), Catch::Contains("layer1"));
    CHECK_THROWS_AS(fit_tensor(std::vector<float>{1.0f}, all, {0.0}), Error);
    CHECK(parse_distribution("gpareto") == Distribution::gpareto);
    CHECK(!parse_distribution("normal"));
}

TEST_CASE("the log statistics match libm over normals, subnormals and zeros", "[fit]") {
    std::vector<float> x = {1.0f,     2.0f,  0.5f,   1.41421f,
                            1.41422f, 3e-3f, -7.5f,  1e30f,
                            0.0f,     -0.0f, 1e-40f, std::numeric_limits<float>::denorm_min(),
                            1.2e-38f};
    std::mt19937_64 rng(23);
    std::uniform_real_distribution<float> u(-20, 20);
    for (int i = 0; i < 1000; ++i) x.push_back(std::exp(u(rng)));
    double expected = 0;
    std::uint64_t nonzero = 0;
    for (const float v : x) {
        if (v == 0) continue;
        ++nonzero;
        expected += std::log(std::fabs(static_cast<double>(v)));
    }
    const LogStats s = log_stats(x);
    CHECK(s.nonzero == nonzero);
    CHECK(s.sum_log == Approx(expected).epsilon(1e-6));
}

TEST_CASE("the KS distance skipping runs equals the distance at every point", "[fit]") {
    std::mt19937_64 rng(29);
    std::gamma_distribution<float> g(0.7f, 1.0f);
    std::vector<float> x(30000);
    for (auto& v : x) v = std::round(g(rng) * 200.0f) / 200.0f;  // many ties
    std::sort(x.begin(), x.end());
    for (const DistFit f :
         {DistFit{Distribution::gamma, 0.7, 1.0, 0.0}, DistFit{Distribution::exp, 0, 0.69, 0},
          DistFit{Distribution::gpareto, 0.1, 0.6, 0}}) {
        double brute = 0;
        const double n = static_cast<double>(x.size());
        for (std::size_t i = 0; i < x.size();) {
            std::size_t j = i;
            while (j < x.size() && x[j] == x[i]) ++j;
            brute =
                std::max(brute, std::fabs(fitted_cdf_below(f, x[i]) - static_cast<double>(i) / n));
            brute = std::max(brute, std::fabs(fitted_cdf(f, x[i]) - static_cast<double>(j) / n));
            i = j;
        }
        CHECK(ks_distance(x, f) == brute);
    }
}
