#pragma once
// Deterministic gradient-like test data: Laplace-distributed values with a few outliers.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace gradcodec::testing {

inline std::vector<float> laplace_values(std::size_t n, std::uint64_t seed, float scale = 1e-3f) {
    std::mt19937_64 rng(seed);
    std::exponential_distribution<float> magnitude(1.0f / scale);
    std::bernoulli_distribution negative(0.5);
    std::vector<float> v(n);
    for (auto& x : v) x = negative(rng) ? -magnitude(rng) : magnitude(rng);
    return v;
}

template <typename T>
std::span<const std::byte> as_bytes_of(const std::vector<T>& v) {
    return std::as_bytes(std::span(v));
}

}  // namespace gradcodec::testing
