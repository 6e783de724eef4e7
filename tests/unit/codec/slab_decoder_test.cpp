// SlabDecoder: a sparse payload decoded a range of elements at a time gives, slab by slab, the
// bytes decode_tensor gives for the whole tensor, and refuses damage before the first slab.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/slab_decoder.hpp"
#include "test_data.hpp"

using namespace gradcodec;
using gradcodec::testing::thrown_error;

namespace {

std::vector<std::byte> as_dtype(const std::vector<float>& x, DType dtype) {
    std::vector<std::byte> out(x.size() * dtype_size(dtype));
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (dtype == DType::f32) std::memcpy(&out[4 * i], &x[i], 4);
        if (dtype == DType::f64) {
            const double d = x[i];
            std::memcpy(&out[8 * i], &d, 8);
        }
        if (dtype == DType::bf16 || dtype == DType::f16) {
            // Values of a few significant bits, exact in both half formats.
            const float v = std::round(x[i] * 64.0f) / 64.0f;
            std::uint32_t b = 0;
            std::memcpy(&b, &v, 4);
            std::uint16_t h = 0;
            if (dtype == DType::bf16) {
                h = static_cast<std::uint16_t>(b >> 16);
            } else {
                const int exponent = static_cast<int>((b >> 23) & 0xff) - 127;
                const std::uint32_t sign = (b >> 16) & 0x8000;
                h = v == 0.0f ? static_cast<std::uint16_t>(sign)
                              : static_cast<std::uint16_t>(sign | ((exponent + 15) << 10) |
                                                           ((b >> 13) & 0x3ff));
            }
            std::memcpy(&out[2 * i], &h, 2);
        }
    }
    return out;
}

std::vector<std::byte> whole_decode(const EncodedTensor& e, const TensorMeta& meta) {
    std::vector<std::byte> out(meta.byte_count(), std::byte{0x5a});
    decode_tensor(e.codec_id, meta, e.payload, out);
    return out;
}

// Decodes in slabs of `slab` elements (the last one shorter), counting the kept elements.
std::vector<std::byte> slab_decode(const EncodedTensor& e, const TensorMeta& meta,
                                   std::uint64_t slab, std::uint64_t& kept) {
    SlabDecoder decoder(e.codec_id, meta, e.payload);
    const std::size_t size = dtype_size(meta.dtype);
    std::vector<std::byte> out(meta.byte_count(), std::byte{0x5a});
    kept = 0;
    while (decoder.position() < decoder.element_count()) {
        const std::uint64_t first = decoder.position();
        const std::uint64_t count = std::min(slab, decoder.element_count() - first);
        std::vector<std::byte> piece(count * size, std::byte{0x5a});
        const std::uint64_t in_slab = decoder.next(piece);
        const bool all_zero =
            std::all_of(piece.begin(), piece.end(), [](std::byte b) { return b == std::byte{0}; });
        if (in_slab == 0) REQUIRE(all_zero);
        kept += in_slab;
        std::copy(piece.begin(), piece.end(), out.begin() + static_cast<long>(first * size));
    }
    return out;
}

}  // namespace

TEST_CASE("a sparse payload decodes slab by slab to the bytes of the whole decode",
          "[codec][sparse][slabs]") {
    const auto x = testing::student_t_values(20011, 5);  // a prime: slabs end anywhere
    for (const DType dtype : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
        const std::vector<std::byte> data = as_dtype(x, dtype);
        const TensorMeta meta{"layer.weight", dtype, {20011}};
        for (const char* spec :
             {"topk:density=0.01", "topk:count=3,values=f32", "topk:density=0.5,zstd=off",
              "threshold:value=0.5,values=bf16", "dgc:density=0.001,seed=3",
              "sidco:dist=exp,density=0.01", "topk:density=0.02,values=rangeq"}) {
            INFO(spec << " on " << dtype_name(dtype));
            const EncodedTensor e = encode_tensor(parse_codec_spec(spec), meta, data);
            REQUIRE(decodes_in_slabs(e.codec_id));
            const PayloadStats stats = describe_payload(e.codec_id, meta, e.payload);
            const std::vector<std::byte> whole = whole_decode(e, meta);
            for (const std::uint64_t slab : {1ull, 97ull, 4096ull, 20011ull}) {
                INFO("slabs of " << slab);
                std::uint64_t kept = 0;
                CHECK(slab_decode(e, meta, slab, kept) == whole);
                CHECK(kept == stats.carried);
            }
            // What it holds: 12 bytes per kept value plus the sections, read from the headers.
            const std::uint64_t working = SlabDecoder::working_bytes(e.codec_id, meta, e.payload);
            CHECK(working >= 12 * stats.carried);
            CHECK(working <= 16 * stats.carried + 20011 / 8 + 4200);
        }
    }
}

TEST_CASE("a slab decoder refuses damage when it is made, before any slab",
          "[codec][sparse][slabs]") {
    const auto x = testing::student_t_values(5000, 2);
    const TensorMeta meta{"layer.weight", DType::f32, {5000}};
    const EncodedTensor e = encode_tensor(parse_codec_spec("topk:density=0.05,zstd=off"), meta,
                                          std::as_bytes(std::span<const float>(x)));
    // Every truncation is damage, from the headers (working_bytes) or the sections.
    for (std::size_t size = 0; size < e.payload.size(); size += 7) {
        const std::span<const std::uint8_t> cut(e.payload.data(), size);
        CHECK_THROWS_MATCHES(SlabDecoder(e.codec_id, meta, cut), Error,
                             Catch::Predicate<Error>([](const Error& err) {
                                 return err.kind() == ErrorKind::damaged_stream;
                             }));
    }
    // A flipped bit in the last position byte breaks the position section: refused whole.
    std::vector<std::uint8_t> damaged = e.payload;
    const std::size_t positions_end = 32 + [&] {
        std::uint64_t length = 0;
        std::memcpy(&length, &e.payload[24], 8);
        return length;
    }();
    damaged[positions_end - 1] ^= 0x80;
    std::string whole_error;
    try {
        std::vector<std::byte> out(meta.byte_count());
        decode_tensor(e.codec_id, meta, damaged, out);
    } catch (const Error& err) {
        whole_error = err.what();
    }
    REQUIRE(!whole_error.empty());
    const auto err = thrown_error([&] { SlabDecoder decoder(e.codec_id, meta, damaged); });
    CHECK(err.kind() == ErrorKind::damaged_stream);
    CHECK(std::string(err.what()) == whole_error);
}

TEST_CASE("a slab decoder refuses other codecs, non-float tensors and slabs past the end",
          "[codec][sparse][slabs]") {
    const std::vector<float> x(100, 1.0f);
    const TensorMeta meta{"t", DType::f32, {100}};
    const auto data = std::as_bytes(std::span<const float>(x));
    const EncodedTensor lossless = encode_tensor(parse_codec_spec("lossless"), meta, data);
    CHECK_FALSE(decodes_in_slabs(lossless.codec_id));
    CHECK_THROWS_MATCHES(SlabDecoder(lossless.codec_id, meta, lossless.payload), Error,
                         Catch::Message("t: codec 'lossless' does not decode in slabs; use "
                                        "decode_tensor"));
    const EncodedTensor topk = encode_tensor(parse_codec_spec("topk:count=2"), meta, data);
    const TensorMeta ints{"i", DType::i32, {100}};
    CHECK_THROWS_MATCHES(SlabDecoder::working_bytes(topk.codec_id, ints, topk.payload), Error,
                         Catch::Message("i: codec 'topk' recorded on a non-float tensor"));
    SlabDecoder decoder(topk.codec_id, meta, topk.payload);
    std::vector<std::byte> slab(std::size_t{4} * 60);
    CHECK(decoder.next(slab) == 2);              // count=2 of equal values keeps the first two
    CHECK_THROWS_AS(decoder.next(slab), Error);  // 60 more elements run past 100
    std::vector<std::byte> partial(6);
    CHECK_THROWS_AS(decoder.next(partial), Error);
    CHECK(decoder.position() == 60);
    CHECK(decoder.next_kept() == 100);  // both kept elements lie behind
    std::vector<std::byte> rest(std::size_t{4} * 40);
    CHECK(decoder.next(rest) == 0);
    CHECK(decoder.position() == 100);
}

TEST_CASE("a slab decoder skips ranges up to the next kept element", "[codec][sparse][slabs]") {
    std::vector<float> x(1000, 0.0f);
    x[10] = 1.0f;
    x[500] = -2.0f;
    x[999] = 3.0f;
    const TensorMeta meta{"t", DType::f32, {1000}};
    const EncodedTensor e = encode_tensor(parse_codec_spec("topk:count=3,values=f32"), meta,
                                          std::as_bytes(std::span<const float>(x)));
    SlabDecoder decoder(e.codec_id, meta, e.payload);
    CHECK(decoder.next_kept() == 10);
    decoder.skip(10);
    CHECK(decoder.next_kept() == 10);
    decoder.skip(400);  // past element 10, which is never decoded
    CHECK(decoder.next_kept() == 500);
    std::vector<float> slab(100, 9.0f);
    CHECK(decoder.next(std::as_writable_bytes(std::span<float>(slab))) == 1);
    CHECK(slab[90] == -2.0f);
    CHECK(std::count(slab.begin(), slab.end(), 0.0f) == 99);
    CHECK(decoder.next_kept() == 999);
    CHECK_THROWS_AS(decoder.skip(491), Error);
    decoder.skip(489);
    std::vector<float> last(1, 0.0f);
    CHECK(decoder.next(std::as_writable_bytes(std::span<float>(last))) == 1);
    CHECK(last[0] == 3.0f);
    CHECK(decoder.next_kept() == 1000);
}
