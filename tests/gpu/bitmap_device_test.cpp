#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "bitmap_pack.hpp"
#include "device_buffer.hpp"
#include "index/position_coders.hpp"

using namespace gradcodec;

TEST_CASE("the device bitmap equals the bitmap position coder's bytes", "[gpu][index]") {
    std::mt19937 rng(5);
    for (int round = 0; round < 30; ++round) {
        const std::uint64_t n = std::uniform_int_distribution<std::uint64_t>(1, 100000)(rng);
        const double density = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
        std::vector<std::uint64_t> kept;
        std::bernoulli_distribution keep(density);
        for (std::uint64_t p = 0; p < n; ++p)
            if (keep(rng)) kept.push_back(p);
        DeviceBuffer<std::uint64_t> device_kept(kept);
        INFO("n " << n << " k " << kept.size());
        const std::vector<std::uint8_t> device =
            cuda::bitmap_on_device(device_kept.get(), kept.size(), n);
        const auto host = encode_bitmap(kept, n);
        CHECK(std::equal(device.begin(), device.end(), host.begin(), host.end()));
    }
}
