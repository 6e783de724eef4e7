#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "device_buffer.hpp"
#include "quant/range_float.hpp"
#include "range_quant.hpp"

using namespace gradcodec;

TEST_CASE("device range codes equal the CPU's bit for bit, and decode to the same floats",
          "[gpu][rangeq]") {
    std::mt19937 rng(3);
    std::normal_distribution<float> dist(0.0f, 1e-3f);
    std::vector<float> x(100003);
    for (auto& v : x) v = dist(rng);
    x[0] = 0.0f;
    x[1] = -0.0f;
    x[2] = 1e-30f;
    for (const int bits : {2, 4, 8, 10, 12, 16}) {
        for (int m = min_mantissa(bits); m <= 23; m += 5) {
            for (const Rounding r : {Rounding::nearest, Rounding::truncate}) {
                const RangeLadder ladder = ladder_from_max(bits, m, 4e-3f, r);
                INFO("bits " << bits << " mantissa " << m);
                std::vector<std::uint32_t> cpu(x.size());
                encode_range_floats(ladder, r, x, cpu.data());
                DeviceBuffer<float> in(x);
                DeviceBuffer<std::uint32_t> codes(x.size());
                cuda::encode_range_codes_on_device(ladder, r, in.get(), x.size(), codes.get());
                REQUIRE(codes.host() == cpu);
                std::vector<float> cpu_values(x.size());
                decode_range_floats(ladder, cpu.data(), std::span<float>(cpu_values));
                DeviceBuffer<float> out(x.size());
                cuda::decode_range_codes_on_device(ladder, codes.get(), x.size(), out.get());
                const std::vector<float> gpu_values = out.host();
                REQUIRE(std::memcmp(gpu_values.data(), cpu_values.data(), 4 * x.size()) == 0);
            }
        }
    }
}
