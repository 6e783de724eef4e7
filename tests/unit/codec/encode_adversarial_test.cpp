#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/small_float.hpp"
#include "encode_roundtrip.hpp"

using namespace gradcodec;

namespace {

// Tensors built to hit the edges of every encoder: mostly non-finite, constant, subnormal,
// spanning the whole binary32 range, sitting at the dtype's largest value.
struct Adversary {
    std::string name;
    std::vector<double> values;
};

double nan_with_payload(std::uint32_t payload, bool negative) {
    const std::uint32_t bits = (negative ? 0xff800000u : 0x7f800000u) | (payload & 0x7fffffu | 1u);
    return static_cast<double>(std::bit_cast<float>(bits));
}

std::vector<Adversary> adversaries(std::size_t n, double dtype_max) {
    std::mt19937_64 rng(n * 7919 + 1);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    std::uniform_int_distribution<std::uint32_t> bits;
    std::vector<Adversary> out;
    const auto make = [&](const std::string& name, auto element) {
        Adversary a{name, std::vector<double>(n)};
        for (std::size_t i = 0; i < n; ++i) a.values[i] = element(i);
        out.push_back(std::move(a));
    };
    const double inf = std::numeric_limits<double>::infinity();
    make("nan-heavy", [&](std::size_t i) {
        return i % 8 == 3 ? unit(rng) : nan_with_payload(bits(rng), bits(rng) & 1);
    });
    make("inf-heavy", [&](std::size_t i) { return i % 5 == 0 ? unit(rng) : (i % 2 ? inf : -inf); });
    make("all-nan", [&](std::size_t) { return std::numeric_limits<double>::quiet_NaN(); });
    make("nonfinite-mix", [&](std::size_t i) {
        switch (i % 4) {
            case 0:
                return nan_with_payload(bits(rng), false);
            case 1:
                return inf;
            case 2:
                return 1e-3 * unit(rng);
            default:
                return -inf;
        }
    });
    make("all-equal", [&](std::size_t) { return 0.75; });
    make("all-zero", [&](std::size_t i) { return i % 2 ? -0.0 : 0.0; });
    make("subnormal-only", [&](std::size_t i) {
        return static_cast<double>(
                   std::bit_cast<float>(static_cast<std::uint32_t>(1 + i % 0x7fffff))) *
               (i % 3 ? 1 : -1);
    });
    make("huge-range", [&](std::size_t) {
        const double mag =
            std::ldexp(1.0 + unit(rng) * 0.5, static_cast<int>(bits(rng) % 250) - 125);
        return std::min(mag, dtype_max) * (unit(rng) < 0 ? -1 : 1);
    });
    make("at-dtype-max", [&](std::size_t i) { return i % 3 ? dtype_max : -dtype_max * unit(rng); });
    make("beyond-binary32", [&](std::size_t i) {
        return i % 4 == 1 ? std::min(1e300, dtype_max) * (i % 8 == 1 ? 1 : -1) : 1e-3 * unit(rng);
    });
    make("one-outlier", [&](std::size_t i) { return i == n / 2 ? dtype_max : 1e-6 * unit(rng); });
    return out;
}

std::vector<std::byte> stored_as(DType dtype, const std::vector<double>& v) {
    std::vector<std::byte> out(v.size() * dtype_size(dtype));
    for (std::size_t i = 0; i < v.size(); ++i) {
        std::byte* at = out.data() + i * dtype_size(dtype);
        if (dtype == DType::f64) {
            std::memcpy(at, &v[i], 8);
        } else if (dtype == DType::f32) {
            const auto f = static_cast<float>(v[i]);
            std::memcpy(at, &f, 4);
        } else {
            const SmallFloat t = dtype == DType::f16 ? SmallFloat::f16 : SmallFloat::bf16;
            const std::uint16_t h = narrow_to(t, v[i]).value_or(0);
            std::memcpy(at, &h, 2);
        }
    }
    return out;
}

bool all_finite(const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

bool all_finite(DType dtype, const std::vector<std::byte>& data) {
    const std::size_t size = dtype_size(dtype);
    for (std::size_t i = 0; i < data.size() / size; ++i) {
        double x = 0;
        if (dtype == DType::f64) {
            std::memcpy(&x, data.data() + 8 * i, 8);
        } else if (dtype == DType::f32) {
            float f;
            std::memcpy(&f, data.data() + 4 * i, 4);
            x = f;
        } else {
            std::uint16_t h;
            std::memcpy(&h, data.data() + 2 * i, 2);
            x = dtype == DType::f16 ? f16_to_float(h) : bf16_to_float(h);
        }
        if (!std::isfinite(x)) return false;
    }
    return true;
}

double dtype_max(DType dtype) {
    switch (dtype) {
        case DType::f16:
            return small_float_max(SmallFloat::f16);
        case DType::bf16:
            return small_float_max(SmallFloat::bf16);
        case DType::f32:
            return std::numeric_limits<float>::max();
        default:
            return std::numeric_limits<double>::max();
    }
}

}  // namespace

TEST_CASE("every codec either refuses an adversarial tensor clearly or writes one that decodes",
          "[adversarial]") {
    int encoded = 0, refused = 0;
    // 1500 values reach the sparse value-section limit (750 NaNs kept as rangeq exceptions);
    // the other dtypes share f32's code paths past the conversion, so fewer values do for them.
    for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{1500}}) {
        for (const DType dtype : {DType::f32, DType::f16, DType::bf16, DType::f64}) {
            const std::size_t n = dtype == DType::f32 ? size : std::min<std::size_t>(size, 300);
            for (const Adversary& a : adversaries(n, dtype_max(dtype))) {
                if (n == 0 && a.name != "all-zero") continue;  // every empty tensor is alike
                const std::vector<std::byte> data = stored_as(dtype, a.values);
                const TensorMeta meta{"adversary/" + a.name, dtype, {n}};
                const bool finite = all_finite(a.values);
                for (const std::string& text : testing::every_codec_and_value_coder()) {
                    for (const bool nonfinite : {false, true}) {
                        if (finite && nonfinite) continue;  // the option changes nothing then
                        const auto r = testing::encode_then_decode(parse_codec_spec(text), meta,
                                                                   data, EncodeOptions{nonfinite});
                        INFO(text << " on " << a.name << ", " << dtype_name(dtype) << ", n = " << n
                                  << (nonfinite ? ", allow_nonfinite" : ""));
                        CHECK(r.broken_promise == "");
                        (r.encoded ? encoded : refused) += 1;
                        if (r.encoded && text == "lossless") CHECK(r.decoded == data);
                        // A finite tensor never decodes to an infinity or NaN.
                        if (r.encoded && finite) CHECK(all_finite(dtype, r.decoded));
                    }
                }
            }
        }
    }
    // Both outcomes occur: the adversaries reach the refusals as well as the writers.
    CHECK(encoded > 1000);
    CHECK(refused > 100);
}
