#pragma once
// Benchmark inputs: gradient-like float32 values (Laplace, scale 1e-3), generated once.
#include <cstddef>
#include <random>
#include <vector>

namespace gradcodec::bench {

// `zero_percent` of the values are exact zeros, as ReLU networks' gradients have (the sample
// dumps' fully connected layers hold 40-85% zeros).
inline const std::vector<float>& gradient_like(std::size_t n, int zero_percent = 0) {
    static std::vector<float> values;
    static int made_with = -1;
    if (values.size() != n || made_with != zero_percent) {
        std::mt19937_64 rng(42);
        std::exponential_distribution<float> magnitude(1000.0f);
        std::uniform_int_distribution<int> percent(0, 99);
        values.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const float m = magnitude(rng);
            values[i] = percent(rng) < zero_percent ? 0.0f : (rng() & 1) ? -m : m;
        }
        made_with = zero_percent;
    }
    return values;
}

}  // namespace gradcodec::bench
