#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <vector>

#include "common/small_float.hpp"
#include "expect_error.hpp"
#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"
#include "select/topk.hpp"
#include "test_data.hpp"

using namespace gradcodec;
using gradcodec::testing::thrown_error;

namespace {

std::span<const std::byte> as_bytes(const std::vector<float>& x) {
    return std::as_bytes(std::span<const float>(x));
}

std::vector<float> decode_floats(const EncodedTensor& e, const TensorMeta& meta) {
    std::vector<float> out(meta.element_count(), -7.0f);
    decode_tensor(e.codec_id, meta, e.payload, std::as_writable_bytes(std::span<float>(out)));
    return out;
}

TensorMeta meta_of(std::size_t n) {
    return {"layer.weight", DType::f32, {n}};
}

}  // namespace

TEST_CASE("every sparse selector round-trips: kept values exact in f32, zeros elsewhere",
          "[codec][sparse]") {
    const auto x = testing::student_t_values(50000, 1);
    const TensorMeta meta = meta_of(x.size());
    for (const char* spec :
         {"topk:density=0.01,values=f32", "topk:count=17,values=f32",
          "threshold:value=0.004,values=f32", "dgc:density=0.001,values=f32,seed=3",
          "sidco:dist=exp,density=0.01,values=f32",
          "sidco:dist=gpareto,density=0.001,stages=2,values=f32",
          "sidco:dist=gamma,density=0.01,values=f32,zstd=off"}) {
        INFO(spec);
        const EncodedTensor e = encode_tensor(parse_codec_spec(spec), meta, as_bytes(x));
        CHECK(e.codec_id == 4);
        const auto y = decode_floats(e, meta);
        std::size_t kept = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (y[i] != 0.0f) {
                REQUIRE(y[i] == x[i]);
                ++kept;
            }
        }
        CHECK(kept > 0);
        const PayloadStats s = describe_payload(e.codec_id, meta, e.payload);
        CHECK(s.has_bit_split);
        CHECK(s.position_bits > 0);
        CHECK(s.value_bits > 8 * kept);  // f32 values, perhaps zstd-compressed
    }
}

TEST_CASE("top-k keeps exactly k and reports its target density", "[codec][sparse]") {
    const auto x = testing::student_t_values(100000, 2);
    const TensorMeta meta = meta_of(x.size());
    const EncodedTensor e =
        encode_tensor(parse_codec_spec("topk:density=0.001"), meta, as_bytes(x));
    const auto y = decode_floats(e, meta);
    const Selection s = select_topk(x, 100);
    std::size_t nonzero = 0;
    for (const float v : y) nonzero += v != 0.0f;
    CHECK(nonzero == 100);
    for (const auto i : s.indices) CHECK(std::fabs(y[i] - x[i]) <= std::fabs(x[i]) * 1e-3f);  // f16
    CHECK(describe_payload(4, meta, e.payload).target_density == 0.001);
}

TEST_CASE("sparse codecs work on f16, bf16 and f64 tensors and f16/bf16 values",
          "[codec][sparse]") {
    const auto x = testing::student_t_values(4096, 3);
    for (const DType dt : {DType::f64, DType::f16, DType::bf16}) {
        const TensorMeta meta{"t", dt, {64, 64}};
        std::vector<std::byte> data(meta.byte_count());
        if (dt == DType::f64) {
            for (std::size_t i = 0; i < x.size(); ++i) {
                const double v = x[i];
                std::memcpy(&data[8 * i], &v, 8);
            }
        } else {
            const SmallFloat t = dt == DType::f16 ? SmallFloat::f16 : SmallFloat::bf16;
            for (std::size_t i = 0; i < x.size(); ++i) {
                const std::uint16_t h = *narrow_to(t, x[i]);
                std::memcpy(&data[2 * i], &h, 2);
            }
        }
        for (const char* spec :
             {"topk:density=0.05,values=bf16", "sidco:density=0.05,values=f16"}) {
            const EncodedTensor e = encode_tensor(parse_codec_spec(spec), meta, data);
            std::vector<std::byte> out(meta.byte_count());
            decode_tensor(e.codec_id, meta, e.payload, out);
            std::size_t nonzero = 0;
            for (std::size_t i = 0; i < out.size(); ++i) nonzero += out[i] != std::byte{0};
            CHECK(nonzero > 0);
        }
    }
}

TEST_CASE("sparse specs reject unknown keys and out-of-range values", "[codec][sparse]") {
    for (const char* bad :
         {"topk:density=0", "topk:density=2", "topk:density=0.1,count=5", "topk:stages=2",
          "threshold", "threshold:value=-1", "dgc:sample=0", "sidco:dist=normal", "sidco:stages=0",
          "sidco:stages=x", "topk:zstd=yes", "topk:values=f8"}) {
        INFO(bad);
        const auto e = thrown_error([&] { validate_codec_spec(parse_codec_spec(bad)); });
        CHECK(e.kind() == ErrorKind::usage);
    }
    validate_codec_spec(parse_codec_spec("sidco:dist=gamma,density=0.001,stages=auto"));
    validate_codec_spec(parse_codec_spec("dgc:density=0.001,sample=0.02,seed=9"));
}

TEST_CASE("sparse encoding refuses non-finite input unless told to carry it", "[codec][sparse]") {
    std::vector<float> x = {1.0f, NAN, 0.5f, 0.0f};
    const TensorMeta meta = meta_of(x.size());
    const auto refusal = thrown_error(
        [&] { encode_tensor(parse_codec_spec("topk:density=0.5"), meta, as_bytes(x)); });
    CHECK(refusal.kind() == ErrorKind::bad_input);
    CHECK_THAT(refusal.what(), Catch::Contains("layer.weight") && Catch::Contains("element 1"));
    EncodeOptions carry;
    carry.allow_nonfinite = true;
    const EncodedTensor e =
        encode_tensor(parse_codec_spec("topk:density=0.5,values=f32"), meta, as_bytes(x), carry);
    const auto y = decode_floats(e, meta);
    CHECK(std::isnan(y[1]));
    CHECK(y[0] == 1.0f);
    CHECK(y[2] == 0.0f);
}

TEST_CASE("degenerate tensors encode and decode under every selector", "[codec][sparse]") {
    for (const std::vector<float>& x :
         {std::vector<float>{}, std::vector<float>{0.0f}, std::vector<float>(100, 0.0f),
          std::vector<float>(100, 2.0f), std::vector<float>(33, 1e-41f)}) {
        const TensorMeta meta = meta_of(x.size());
        for (const char* spec : {"topk:density=0.1,values=f32", "threshold:value=0,values=f32",
                                 "dgc:density=0.1,values=f32", "sidco:density=0.1,values=f32",
                                 "sidco:dist=gamma,density=0.01,values=f32"}) {
            INFO(spec << " n=" << x.size());
            const EncodedTensor e = encode_tensor(parse_codec_spec(spec), meta, as_bytes(x));
            const auto y = decode_floats(e, meta);
            for (std::size_t i = 0; i < x.size(); ++i) CHECK((y[i] == 0.0f || y[i] == x[i]));
        }
    }
}

TEST_CASE("hostile sparse payloads are refused, never crash", "[codec][sparse]") {
    const auto x = testing::student_t_values(3000, 4);
    const TensorMeta meta = meta_of(x.size());
    for (const char* spec :
         {"topk:density=0.01", "topk:density=0.5,values=f32", "sidco:density=0.01,zstd=off"}) {
        const EncodedTensor e = encode_tensor(parse_codec_spec(spec), meta, as_bytes(x));
        std::vector<float> out(x.size());
        auto out_bytes = std::as_writable_bytes(std::span<float>(out));
        for (std::size_t len = 0; len < e.payload.size(); len += 1 + len / 8) {
            std::vector<std::uint8_t> cut(e.payload.begin(),
                                          e.payload.begin() + static_cast<long>(len));
            CHECK_THROWS_AS(decode_tensor(4, meta, cut, out_bytes), Error);
        }
        auto longer = e.payload;
        longer.push_back(0);
        CHECK_THROWS_AS(decode_tensor(4, meta, longer, out_bytes), Error);
        for (std::size_t bit = 0; bit < 8 * std::min<std::size_t>(e.payload.size(), 400); ++bit) {
            auto flipped = e.payload;
            flipped[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
            try {
                decode_tensor(4, meta, flipped, out_bytes);
            } catch (const Error& err) {
                CHECK(err.kind() == ErrorKind::damaged_stream);
            }
        }
        // The same payload against a smaller tensor.
        const TensorMeta small = meta_of(10);
        std::vector<float> small_out(10);
        CHECK_THROWS_AS(
            decode_tensor(4, small, e.payload, std::as_writable_bytes(std::span<float>(small_out))),
            Error);
    }
}
