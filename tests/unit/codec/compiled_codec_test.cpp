#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "gradcodec/gradcodec.hpp"
#include "test_data.hpp"

using namespace gradcodec;
using gradcodec::testing::as_bytes_of;
using gradcodec::testing::thrown_error;

namespace {

const std::vector<std::string> kEverySpec = {
    "lossless",
    "cast:to=f16",
    "cast:to=bf16",
    "rangeq:bits=8",
    "rangeq:bits=16",
    "topk:density=0.01",
    "topk:count=7,values=f32",
    "threshold:value=0.001",
    "dgc:density=0.01",
    "sidco:dist=exp,density=0.01",
    "topk:density=0.5,values=rangeq,bits=12",
    "fft:density=0.1",
    "fft:density=0.3,values=f32",
    "dct:density=0.1",
};

// Tensors that stress the size of a payload: dense values everywhere, extremes, zeros.
std::vector<std::vector<float>> adversarial_tensors() {
    std::vector<std::vector<float>> out;
    out.push_back(gradcodec::testing::laplace_values(5000, 1));
    out.push_back(std::vector<float>(4099, 0.0f));
    out.push_back(std::vector<float>(777, 1.0f));
    std::vector<float> wide(3000);
    for (std::size_t i = 0; i < wide.size(); ++i) {
        wide[i] = std::ldexp(i % 2 ? -1.0f : 1.0f, static_cast<int>(i % 200) - 100);
    }
    out.push_back(wide);
    std::vector<float> subnormal(1000);
    for (std::size_t i = 0; i < subnormal.size(); ++i) {
        subnormal[i] = std::numeric_limits<float>::denorm_min() * static_cast<float>(i + 1);
    }
    out.push_back(subnormal);
    out.push_back({});
    out.push_back({3.0f});
    return out;
}

}  // namespace

TEST_CASE("a compiled codec writes the same payload as encode_tensor", "[codec][compiled]") {
    const auto x = gradcodec::testing::laplace_values(10000, 5);
    const TensorMeta meta{"w", DType::f32, {100, 100}};
    for (const auto& spec : kEverySpec) {
        INFO(spec);
        const Codec codec = Codec::compile(spec);
        const EncodedTensor reference = encode_tensor(parse_codec_spec(spec), meta, as_bytes_of(x));
        CHECK(codec.id() == reference.codec_id);
        CHECK(codec.spec() == reference.spec);
        CHECK(codec.encode(meta, as_bytes_of(x)) == reference.payload);
        const EncodedTensor compiled = encode_tensor(codec, meta, as_bytes_of(x));
        CHECK(compiled.codec_id == reference.codec_id);
        CHECK(compiled.spec == reference.spec);
        CHECK(compiled.payload == reference.payload);
    }
}

TEST_CASE("a compiled codec is reusable across tensors of different shapes and dtypes",
          "[codec][compiled]") {
    const Codec codec = Codec::compile("topk:density=0.1");
    for (std::size_t n : {10u, 1000u, 33333u}) {
        const auto x = gradcodec::testing::laplace_values(n, n);
        const TensorMeta meta{"t", DType::f32, {n}};
        std::vector<std::uint8_t> out(codec.max_encoded_size(meta));
        const std::size_t size = codec.encode_into(meta, as_bytes_of(x), out);
        out.resize(size);
        CHECK(out ==
              encode_tensor(parse_codec_spec("topk:density=0.1"), meta, as_bytes_of(x)).payload);
    }
}

// Every spec on every adversarial tensor, with and without non-finite values carried: `check`
// gets each payload that encode produced. Codecs that cannot carry NaN or an overflowing
// transform refuse it as bad input, and are skipped.
template <class Check>
void for_each_payload(Check&& check) {
    for (const bool nonfinite : {false, true}) {
        EncodeOptions options;
        options.allow_nonfinite = nonfinite;
        auto tensors = adversarial_tensors();
        if (nonfinite) {
            std::vector<float> nans(2000, std::numeric_limits<float>::quiet_NaN());
            for (std::size_t i = 0; i < nans.size(); i += 3)
                nans[i] = -std::numeric_limits<float>::infinity();
            tensors.push_back(nans);
        }
        for (const auto& spec : kEverySpec) {
            const Codec codec = Codec::compile(spec, options);
            for (const auto& x : tensors) {
                INFO(spec << " on " << x.size() << " values, nonfinite=" << nonfinite);
                const TensorMeta meta{"t", DType::f32, {x.size()}};
                std::vector<std::uint8_t> payload;
                try {
                    payload = codec.encode(meta, as_bytes_of(x));
                } catch (const Error& e) {
                    CHECK(e.kind() == ErrorKind::bad_input);
                    continue;
                }
                check(codec, meta, x, payload);
            }
        }
    }
}

TEST_CASE("no payload exceeds max_encoded_size, whatever the values", "[codec][bound][property]") {
    for_each_payload([](const Codec& codec, const TensorMeta& meta, const std::vector<float>&,
                        const std::vector<std::uint8_t>& payload) {
        CHECK(payload.size() <= codec.max_encoded_size(meta));
    });
}

TEST_CASE("encode_into writes in place the bytes encode returns, whatever the buffer held",
          "[codec][compiled]") {
    for_each_payload([](const Codec& codec, const TensorMeta& meta, const std::vector<float>& x,
                        const std::vector<std::uint8_t>& expected) {
        // A buffer of stale bytes must not leak into padding or unwritten fields.
        for (const std::uint8_t stale :
             {std::uint8_t{0x00}, std::uint8_t{0xFF}, std::uint8_t{0x5A}}) {
            std::vector<std::uint8_t> out(codec.max_encoded_size(meta) + 3, stale);
            const std::size_t size = codec.encode_into(meta, as_bytes_of(x), out);
            REQUIRE(size == expected.size());
            CHECK(std::equal(expected.begin(), expected.end(), out.begin()));
            CHECK(std::all_of(out.begin() + static_cast<std::ptrdiff_t>(size), out.end(),
                              [&](std::uint8_t b) { return b == stale; }));
        }
        // The exact size suffices, one byte less does not.
        std::vector<std::uint8_t> exact(expected.size());
        CHECK(codec.encode_into(meta, as_bytes_of(x), exact) == expected.size());
        CHECK(exact == expected);
        if (expected.empty()) return;
        exact.pop_back();
        const auto e = thrown_error([&] { codec.encode_into(meta, as_bytes_of(x), exact); });
        CHECK(e.kind() == ErrorKind::limit);
    });
}

TEST_CASE("encode_into refuses a buffer smaller than the payload and writes nothing past it",
          "[codec][compiled]") {
    const Codec codec = Codec::compile("lossless");
    const auto x = gradcodec::testing::laplace_values(1000, 2);
    const TensorMeta meta{"t", DType::f32, {x.size()}};
    std::vector<std::uint8_t> small(100, 0xAB);
    const auto e =
        thrown_error([&] { codec.encode_into(meta, as_bytes_of(x), std::span(small).first(50)); });
    CHECK(e.kind() == ErrorKind::limit);
    for (std::size_t i = 50; i < small.size(); ++i) REQUIRE(small[i] == 0xAB);
}

TEST_CASE("the residual is exactly what a sparse codec left out", "[codec][residual]") {
    const auto x = gradcodec::testing::laplace_values(20000, 9);
    const TensorMeta meta{"t", DType::f32, {x.size()}};
    for (const char* spec : {"topk:density=0.01,values=f32", "topk:density=0.01",
                             "dgc:density=0.01", "threshold:value=0.002,values=bf16"}) {
        INFO(spec);
        const Codec codec = Codec::compile(spec);
        std::vector<std::uint8_t> out(codec.max_encoded_size(meta));
        std::vector<float> residual(x.size());
        const std::size_t size = codec.encode_into(meta, as_bytes_of(x), out,
                                                   std::as_writable_bytes(std::span(residual)));
        std::vector<float> decoded(x.size());
        decode_tensor(codec.id(), meta, std::span(out).first(size),
                      std::as_writable_bytes(std::span(decoded)));
        std::size_t kept = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            kept += decoded[i] != 0.0f;
            // Kept values round to within a factor of 2 of x, so x - decoded is exact (Sterbenz).
            REQUIRE(decoded[i] + residual[i] == x[i]);
            if (decoded[i] == 0.0f) REQUIRE(residual[i] == x[i]);
        }
        CHECK(kept > 0);
    }
}

TEST_CASE("the residual of a dense codec is the quantization error", "[codec][residual]") {
    const auto x = gradcodec::testing::laplace_values(5000, 3);
    const TensorMeta meta{"t", DType::f32, {x.size()}};
    const Codec codec = Codec::compile("rangeq:bits=4");
    std::vector<std::uint8_t> out(codec.max_encoded_size(meta));
    std::vector<float> residual(x.size());
    const std::size_t size =
        codec.encode_into(meta, as_bytes_of(x), out, std::as_writable_bytes(std::span(residual)));
    std::vector<float> decoded(x.size());
    decode_tensor(codec.id(), meta, std::span(out).first(size),
                  std::as_writable_bytes(std::span(decoded)));
    double error = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        REQUIRE(residual[i] == x[i] - decoded[i]);
        error += std::fabs(residual[i]);
    }
    CHECK(error > 0);
}

TEST_CASE("feedback hands back the payload decoded and the residual from one decode",
          "[codec][residual]") {
    const auto x = gradcodec::testing::laplace_values(6000, 5);
    const TensorMeta meta{"t", DType::f32, {x.size()}};
    for (const std::string& spec : kEverySpec) {
        INFO(spec);
        const Codec codec = Codec::compile(spec);
        std::vector<std::uint8_t> out(codec.max_encoded_size(meta));
        std::vector<float> residual(x.size(), -1.0f), decoded(x.size(), -1.0f);
        const std::size_t size =
            codec.encode_into(meta, as_bytes_of(x), out,
                              Feedback{std::as_writable_bytes(std::span(residual)),
                                       std::as_writable_bytes(std::span(decoded))});
        REQUIRE(size == codec.encode(meta, as_bytes_of(x)).size());
        std::vector<float> receiver(x.size());
        codec.decode_into(meta, std::span(out).first(size),
                          std::as_writable_bytes(std::span(receiver)));
        REQUIRE(std::memcmp(decoded.data(), receiver.data(), x.size() * sizeof(float)) == 0);
        for (std::size_t i = 0; i < x.size(); ++i) REQUIRE(residual[i] == x[i] - receiver[i]);

        std::vector<float> decoded_only(x.size(), -1.0f);
        codec.encode_into(meta, as_bytes_of(x), out,
                          Feedback{{}, std::as_writable_bytes(std::span(decoded_only))});
        CHECK(decoded_only == decoded);
    }
}

TEST_CASE("feedback buffers of the wrong size are refused", "[codec][residual]") {
    const auto x = gradcodec::testing::laplace_values(100, 5);
    const TensorMeta meta{"t", DType::f32, {x.size()}};
    const Codec codec = Codec::compile("topk:density=0.1");
    std::vector<std::uint8_t> out(codec.max_encoded_size(meta));
    std::vector<float> short_buffer(x.size() - 1);
    REQUIRE_THROWS_WITH(
        codec.encode_into(meta, as_bytes_of(x), out,
                          Feedback{{}, std::as_writable_bytes(std::span(short_buffer))}),
        Catch::Contains("decoded buffer of 396 bytes, the tensor needs 400"));
}

TEST_CASE("a bad spec fails when compiled, naming the valid keys", "[codec][compiled]") {
    const auto e = thrown_error([] { Codec::compile("topk:densty=0.1"); });
    CHECK(e.kind() == ErrorKind::usage);
    CHECK(std::string(e.what()).find("density") != std::string::npos);
    CHECK_THROWS_AS(Codec::compile("nosuch"), Error);
}

TEST_CASE("codec_name names payload layouts, not the selector that wrote them", "[codec]") {
    CHECK(codec_name(Codec::compile("dgc:density=0.1").id()) == "sparse");
    CHECK(codec_name(Codec::compile("rangeq").id()) == "rangeq");
    CHECK(codec_name(999).empty());
}
