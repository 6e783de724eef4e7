#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <vector>

#include "cufft_backend.hpp"
#include "device_buffer.hpp"
#include "test_data.hpp"
#include "transform/fft_backend.hpp"

using namespace gradcodec;

namespace {

// Bins and coefficients of N(0,1) input grow like sqrt(size); both backends round in float.
double tolerance(std::size_t size) {
    return 2e-5 * std::sqrt(static_cast<double>(size)) * std::log2(static_cast<double>(size) + 2.0);
}

}  // namespace

TEST_CASE("cuFFT forward and inverse agree with FFTW on batches of many sizes",
          "[gpu][transform]") {
    const FftBackend& gpu = cuda::cufft_backend();
    const FftBackend& cpu = fftw_backend();
    for (const std::size_t size : {1, 2, 3, 5, 8, 97, 256, 1000, 4096}) {
        const std::size_t count = 7, bins = r2c_bins(size);
        const std::vector<float> x =
            testing::normal_values(size * count, static_cast<unsigned>(size));
        std::vector<std::complex<float>> want(bins * count);
        cpu.forward_r2c({size, count, size, bins}, x.data(), want.data());
        DeviceBuffer<float> in(x);
        DeviceBuffer<std::complex<float>> spectrum(bins * count);
        gpu.forward_r2c({size, count, size, bins}, in.get(), spectrum.get());
        const auto got = spectrum.host();
        for (std::size_t i = 0; i < want.size(); ++i) {
            INFO("size " << size << " bin " << i);
            REQUIRE(std::abs(got[i] - want[i]) <= tolerance(size));
        }
        DeviceBuffer<float> back(size * count);
        gpu.inverse_c2r({size, count, bins, size}, spectrum.get(), back.get());
        const auto y = back.host();
        for (std::size_t i = 0; i < x.size(); ++i) {
            REQUIRE(std::fabs(y[i] / static_cast<float>(size) - x[i]) <= tolerance(size));
        }
    }
}

TEST_CASE("the cuFFT DCT-II agrees with FFTW's and DCT-III inverts it", "[gpu][transform]") {
    const FftBackend& gpu = cuda::cufft_backend();
    const FftBackend& cpu = fftw_backend();
    for (const std::size_t size : {1, 2, 3, 4, 7, 16, 31, 256, 1000}) {
        const std::size_t count = 5;
        const std::vector<float> x =
            testing::normal_values(size * count, static_cast<unsigned>(size + 1));
        std::vector<float> want(size * count);
        cpu.dct2({size, count, size, size}, x.data(), want.data());
        DeviceBuffer<float> in(x);
        DeviceBuffer<float> coeffs(size * count);
        gpu.dct2({size, count, size, size}, in.get(), coeffs.get());
        const auto got = coeffs.host();
        for (std::size_t i = 0; i < want.size(); ++i) {
            INFO("size " << size << " coefficient " << i);
            REQUIRE(std::fabs(got[i] - want[i]) <= tolerance(size));
        }
        DeviceBuffer<float> back(size * count);
        gpu.dct3({size, count, size, size}, coeffs.get(), back.get());
        const auto y = back.host();
        for (std::size_t i = 0; i < x.size(); ++i)
            REQUIRE(std::fabs(y[i] - x[i]) <= tolerance(size));
    }
}
