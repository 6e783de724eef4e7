#pragma once
// Deterministic test data: gradient-like (Laplace, heavy-tailed Student's t) and Gaussian.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
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

// Student's t with 3 degrees of freedom, scaled to gradient size: heavier tails than Laplace.
inline std::vector<float> student_t_values(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::student_t_distribution<float> t(3);
    std::vector<float> v(n);
    for (auto& x : v) x = t(rng) * 1e-3f;
    return v;
}

// Standard normal values.
inline std::vector<float> normal_values(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
}

template <typename T>
std::span<const std::byte> as_bytes_of(const std::vector<T>& v) {
    return std::as_bytes(std::span(v));
}

}  // namespace gradcodec::testing
