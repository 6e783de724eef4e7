#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/pointwise.hpp"

using namespace gradcodec;

namespace {

// Adversarial tensors for pointwise bounds: subnormals, magnitudes over 70 decades, exact
// zeros of both signs, and the largest floats.
std::vector<std::vector<float>> adversarial_tensors(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> exponent(-45.0, 37.0);
    std::vector<std::vector<float>> out;
    std::vector<float> subnormal(512), huge_range(512), zeros(512, 0.0f), mixed(2048), top(64);
    for (auto& v : subnormal)
        v = std::numeric_limits<float>::denorm_min() * float(rng() % 1000 + 1);
    for (auto& v : huge_range)
        v = static_cast<float>(std::pow(10.0, exponent(rng))) * ((rng() & 1) ? 1.f : -1.f);
    for (std::size_t i = 0; i < zeros.size(); i += 2) zeros[i] = -0.0f;
    for (std::size_t i = 0; i < mixed.size(); ++i) {
        const int kind = int(rng() % 4);
        mixed[i] = kind == 0   ? 0.0f
                   : kind == 1 ? std::numeric_limits<float>::denorm_min() * float(rng() % 50 + 1)
                   : kind == 2 ? float(std::ldexp(1.0, int(rng() % 60) - 30)) * 1.37f
                               : -1e-3f * float(rng() % 1000);
    }
    for (auto& v : top) v = std::numeric_limits<float>::max() / float(rng() % 8 + 1);
    out = {subnormal, huge_range, zeros, mixed, top};
    return out;
}

std::span<const std::byte> bytes_of(const std::vector<float>& v) {
    return std::as_bytes(std::span<const float>(v));
}

}  // namespace

TEST_CASE("a pointwise bound that is accepted holds for every value of adversarial tensors",
          "[pointwise]") {
    const auto tensors = adversarial_tensors(29);
    int accepted = 0, refused = 0;
    for (std::size_t t = 0; t < tensors.size(); ++t) {
        const TensorMeta meta{"adversarial" + std::to_string(t), DType::f32, {tensors[t].size()}};
        for (const char* codec : {"rangeq", "cast"}) {
            for (const PointwiseBound bound :
                 {PointwiseBound{PointwiseKind::abs, 1e-3},
                  PointwiseBound{PointwiseKind::abs, 1e-30},
                  PointwiseBound{PointwiseKind::abs, 1e30}, PointwiseBound{PointwiseKind::rel, 0.5},
                  PointwiseBound{PointwiseKind::rel, 0.01},
                  PointwiseBound{PointwiseKind::rel, 1e-6}}) {
                INFO(meta.name << " " << codec << " " << int(bound.kind) << " " << bound.value);
                try {
                    const CodecSpec chosen = choose_pointwise(parse_codec_spec(codec), bound, meta,
                                                              bytes_of(tensors[t]));
                    const EncodedTensor e = encode_tensor(chosen, meta, bytes_of(tensors[t]));
                    std::vector<float> back(tensors[t].size());
                    decode_tensor(e.codec_id, meta, e.payload,
                                  std::as_writable_bytes(std::span<float>(back)));
                    for (std::size_t i = 0; i < back.size(); ++i) {
                        const double x = tensors[t][i], err = std::fabs(double(back[i]) - x);
                        const double allowed = bound.kind == PointwiseKind::abs
                                                   ? bound.value
                                                   : bound.value * std::fabs(x);
                        REQUIRE(err <= allowed);
                    }
                    ++accepted;
                } catch (const Error& e) {
                    CHECK(e.kind() == ErrorKind::usage);
                    CHECK(std::string(e.what()).find(meta.name) != std::string::npos);
                    ++refused;
                }
            }
        }
    }
    // Both outcomes occur: zeros are met by anything, a 1e-6 relative bound on 70 decades by
    // nothing.
    CHECK(accepted > 0);
    CHECK(refused > 0);
}

TEST_CASE("zeros stay exact under a relative bound and the cheapest setting is the fewest bits",
          "[pointwise]") {
    const std::vector<float> zeros(100, 0.0f);
    const TensorMeta meta{"zeros", DType::f32, {100}};
    const CodecSpec chosen = choose_pointwise(parse_codec_spec("rangeq"),
                                              {PointwiseKind::rel, 1e-9}, meta, bytes_of(zeros));
    CHECK(chosen.get("bits") == std::optional<std::string_view>("2"));
}

TEST_CASE("a looser bound never costs more bits than a tighter one", "[pointwise]") {
    std::mt19937_64 rng(31);
    std::normal_distribution<float> normal(0.0f, 1e-3f);
    std::vector<float> x(4096);
    for (auto& v : x) v = normal(rng);
    const TensorMeta meta{"grad", DType::f32, {x.size()}};
    int previous = 17;
    for (const double a : {1e-5, 3e-5, 1e-4, 1e-3}) {
        const CodecSpec c = choose_pointwise(parse_codec_spec("rangeq"), {PointwiseKind::abs, a},
                                             meta, bytes_of(x));
        const int bits = std::stoi(std::string(*c.get("bits")));
        CHECK(bits <= previous);
        previous = bits;
    }
    CHECK(previous < 16);
}

TEST_CASE("an abs bound finer than f32 rounding of the data is refused with a usage error",
          "[pointwise]") {
    const std::vector<float> x{1.0f, 1.0f + 1.1920929e-7f, 3.0f, -2.5f};
    const TensorMeta meta{"fine", DType::f32, {4}};
    REQUIRE_THROWS_AS(choose_pointwise(parse_codec_spec("rangeq"), {PointwiseKind::abs, 1e-12},
                                       meta, bytes_of(x)),
                      Error);
    REQUIRE_THROWS_AS(
        choose_pointwise(parse_codec_spec("topk"), {PointwiseKind::abs, 1.0}, meta, bytes_of(x)),
        Error);
}
