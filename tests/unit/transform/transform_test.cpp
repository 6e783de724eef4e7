#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <numbers>
#include <thread>
#include <vector>

#include "test_data.hpp"
#include "transform/fft_backend.hpp"

using namespace gradcodec;

namespace {

const std::size_t kSizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 17, 31, 64, 97, 128, 251, 1000};

std::vector<std::complex<double>> naive_dft(const float* x, std::size_t n) {
    std::vector<std::complex<double>> out(r2c_bins(n));
    for (std::size_t k = 0; k < out.size(); ++k) {
        for (std::size_t j = 0; j < n; ++j) {
            const double angle =
                -2.0 * std::numbers::pi * static_cast<double>(j * k % n) / static_cast<double>(n);
            out[k] += static_cast<double>(x[j]) * std::polar(1.0, angle);
        }
    }
    return out;
}

double dct_scale(std::size_t k, std::size_t n) {
    return std::sqrt((k == 0 ? 1.0 : 2.0) / static_cast<double>(n));
}

std::vector<double> naive_dct2(const float* x, std::size_t n) {
    std::vector<double> out(n);
    for (std::size_t k = 0; k < n; ++k) {
        for (std::size_t j = 0; j < n; ++j) {
            out[k] += x[j] * std::cos(std::numbers::pi * (static_cast<double>(j) + 0.5) *
                                      static_cast<double>(k) / static_cast<double>(n));
        }
        out[k] *= dct_scale(k, n);
    }
    return out;
}

// Float rounding of an n-point transform grows like log n; sqrt(n)·eps is a safe bound.
double tolerance(std::size_t n, double norm) {
    return 1e-6 * std::sqrt(static_cast<double>(n)) * std::max(norm, 1.0) * 8.0;
}

double l2(const std::vector<float>& x) {
    double s = 0;
    for (float v : x) s += static_cast<double>(v) * v;
    return std::sqrt(s);
}

}  // namespace

TEST_CASE("the FFTW r2c matches a naive DFT at small sizes, primes, 1 and 2", "[transform]") {
    const FftBackend& fft = fftw_backend();
    for (std::size_t n : kSizes) {
        INFO("size " << n);
        const auto x = testing::normal_values(n, static_cast<unsigned>(n));
        std::vector<std::complex<float>> got(r2c_bins(n));
        fft.forward_r2c({n, 1, n, r2c_bins(n)}, x.data(), got.data());
        const auto want = naive_dft(x.data(), n);
        for (std::size_t k = 0; k < want.size(); ++k) {
            INFO("bin " << k);
            CHECK(std::abs(std::complex<double>(got[k]) - want[k]) < tolerance(n, l2(x)));
        }
    }
}

TEST_CASE("c2r after r2c gives back size times the input", "[transform]") {
    const FftBackend& fft = fftw_backend();
    for (std::size_t n : kSizes) {
        INFO("size " << n);
        const auto x = testing::normal_values(n, 7 + static_cast<unsigned>(n));
        std::vector<std::complex<float>> spectrum(r2c_bins(n));
        std::vector<float> back(n);
        fft.forward_r2c({n, 1, n, r2c_bins(n)}, x.data(), spectrum.data());
        fft.inverse_c2r({n, 1, r2c_bins(n), n}, spectrum.data(), back.data());
        for (std::size_t j = 0; j < n; ++j) {
            CHECK(std::abs(back[j] / static_cast<float>(n) - x[j]) < tolerance(n, l2(x)));
        }
    }
}

TEST_CASE("the orthonormal DCT-II matches a naive DCT and DCT-III inverts it", "[transform]") {
    const FftBackend& fft = fftw_backend();
    for (std::size_t n : kSizes) {
        INFO("size " << n);
        const auto x = testing::normal_values(n, 100 + static_cast<unsigned>(n));
        std::vector<float> coeffs(n), back(n);
        fft.dct2({n, 1, n, n}, x.data(), coeffs.data());
        const auto want = naive_dct2(x.data(), n);
        for (std::size_t k = 0; k < n; ++k) {
            CHECK(std::abs(coeffs[k] - want[k]) < tolerance(n, l2(x)));
        }
        // Orthonormal: the energy is kept.
        CHECK(std::abs(l2(coeffs) - l2(x)) < tolerance(n, l2(x)));
        fft.dct3({n, 1, n, n}, coeffs.data(), back.data());
        for (std::size_t j = 0; j < n; ++j) CHECK(std::abs(back[j] - x[j]) < tolerance(n, l2(x)));
    }
}

TEST_CASE("a batch with padded strides and unaligned chunks transforms each chunk", "[transform]") {
    const FftBackend& fft = fftw_backend();
    for (std::size_t n : {5u, 8u, 12u, 33u}) {
        INFO("size " << n);
        const std::size_t count = 4, in_stride = n + 3, out_stride = r2c_bins(n) + 1;
        // Offset by one float so every chunk start is misaligned for SIMD at least once.
        std::vector<float> storage(1 + count * in_stride);
        float* in = storage.data() + 1;
        const auto values = testing::normal_values(count * in_stride, 3);
        std::copy(values.begin(), values.end(), in);
        std::vector<std::complex<float>> spectrum(count * out_stride);
        fft.forward_r2c({n, count, in_stride, out_stride}, in, spectrum.data());
        std::vector<float> dct_out(count * in_stride);
        fft.dct2({n, count, in_stride, in_stride}, in, dct_out.data());
        for (std::size_t c = 0; c < count; ++c) {
            const auto want = naive_dft(in + c * in_stride, n);
            const auto want_dct = naive_dct2(in + c * in_stride, n);
            for (std::size_t k = 0; k < want.size(); ++k) {
                CHECK(std::abs(std::complex<double>(spectrum[c * out_stride + k]) - want[k]) <
                      tolerance(n, 4.0 * std::sqrt(n)));
            }
            for (std::size_t k = 0; k < n; ++k) {
                CHECK(std::abs(dct_out[c * in_stride + k] - want_dct[k]) <
                      tolerance(n, 4.0 * std::sqrt(n)));
            }
        }
    }
}

TEST_CASE("threads planning and running transforms at once get the same results", "[transform]") {
    const FftBackend& fft = fftw_backend();
    const std::size_t sizes[] = {301, 302, 303, 304, 305, 306, 307, 308};
    std::vector<std::vector<float>> inputs, outputs(8), expected(8);
    for (std::size_t t = 0; t < 8; ++t)
        inputs.push_back(testing::normal_values(sizes[t], 50 + unsigned(t)));
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            const std::size_t n = sizes[t];
            outputs[t].resize(n);
            for (int rep = 0; rep < 20; ++rep)
                fft.dct2({n, 1, n, n}, inputs[t].data(), outputs[t].data());
        });
    }
    for (auto& th : threads) th.join();
    for (std::size_t t = 0; t < 8; ++t) {
        const std::size_t n = sizes[t];
        const auto want = naive_dct2(inputs[t].data(), n);
        for (std::size_t k = 0; k < n; ++k) {
            CHECK(std::abs(outputs[t][k] - want[k]) < tolerance(n, l2(inputs[t])));
        }
    }
}
