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

const std::vector<std::string>& every_codec_and_value_coder() {
    static const std::vector<std::string> specs = {
        "lossless",
        "cast:to=f16",
        "cast:to=bf16",
        "rangeq:bits=2",
        "rangeq:bits=8",
        "rangeq:bits=16",
        "rangeq:bits=4,round=truncate",
        "rangeq:bits=8,mantissa=3,eps=0.125",
        "topk:count=1,values=f32",
        "topk:density=0.5,values=rangeq,bits=16",
        "topk:density=0.9,values=rangeq,bits=2",
        "topk:density=0.01",
        "topk:density=1,values=bf16",
        "topk:density=0.3,values=f16,zstd=off",
        "threshold:value=0.5,values=rangeq",
        "threshold:value=0,values=f32",
        "threshold:value=1e300,values=bf16",
        "dgc:density=0.1,values=rangeq,bits=12",
        "dgc:density=0.01,seed=3,values=f32",
        "sidco:dist=exp,density=0.1",
        "sidco:dist=gpareto,density=0.01,values=rangeq",
        "sidco:dist=gamma,density=0.05,stages=2,values=f32",
        "fft",
        "fft:density=1,chunk=7,values=f32",
        "fft:density=0.2,values=f16,select=sidco",
        "fft:density=0.3,chunk=16,values=bf16,select=dgc",
        "dct",
        "dct:density=1,chunk=5,values=rangeq,bits=16",
        "dct:density=0.1,values=f16,select=dgc",
    };
    return specs;
}

}  // namespace

TEST_CASE("every codec either refuses an adversarial tensor clearly or writes one that decodes",
          "[adversarial]") {
    int encoded = 0, refused = 0;
    for (const std::size_t n :
         {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{1500}}) {
        for (const DType dtype : {DType::f32, DType::f16, DType::bf16, DType::f64}) {
            for (const Adversary& a : adversaries(n, dtype_max(dtype))) {
                const std::vector<std::byte> data = stored_as(dtype, a.values);
                const TensorMeta meta{"adversary/" + a.name, dtype, {n}};
                for (const std::string& text : every_codec_and_value_coder()) {
                    for (const bool nonfinite : {false, true}) {
                        const auto r = testing::encode_then_decode(parse_codec_spec(text), meta,
                                                                   data, EncodeOptions{nonfinite});
                        INFO(text << " on " << a.name << ", " << dtype_name(dtype) << ", n = " << n
                                  << (nonfinite ? ", allow_nonfinite" : ""));
                        CHECK(r.broken_promise == "");
                        (r.encoded ? encoded : refused) += 1;
                        if (r.encoded && text == "lossless") CHECK(r.decoded == data);
                    }
                }
            }
        }
    }
    // Both outcomes occur: the adversaries reach the refusals as well as the writers.
    CHECK(encoded > 1000);
    CHECK(refused > 100);
}
