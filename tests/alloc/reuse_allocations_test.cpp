// A compiled Codec encoding into, and decoding into, reused buffers on one thread allocates
// nothing once warm. This program replaces operator new (plain and aligned) to count every
// heap allocation made through it, which is how the library's scratch cache allocates; so it
// is a program of its own, apart from the unit tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "allocation_counter.hpp"
#include "common/float_values.hpp"
#include "gradcodec/codec.hpp"

namespace {

using namespace gradcodec;

// Laplace-like gradient values with a few exact zeros, as real gradients have.
std::vector<float> gradient(std::size_t n) {
    std::mt19937_64 rng(7);
    std::exponential_distribution<float> magnitude(1000.0f);
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float m = i % 97 == 0 ? 0.0f : magnitude(rng);
        x[i] = (rng() & 1) ? -m : m;
    }
    return x;
}

struct Counted {
    std::uint64_t allocations;
    std::size_t size;
};

Counted counted_encode(const Codec& codec, const TensorMeta& meta, std::span<const float> x,
                       std::span<std::uint8_t> out) {
    const std::uint64_t before = testing::heap_allocations();
    const std::size_t size = codec.encode_into(meta, std::as_bytes(x), out);
    return {testing::heap_allocations() - before, size};
}

std::uint64_t counted_decode(const Codec& codec, const TensorMeta& meta,
                             std::span<const std::uint8_t> payload, std::span<float> y) {
    const std::uint64_t before = testing::heap_allocations();
    codec.decode_into(meta, payload, std::as_writable_bytes(y));
    return testing::heap_allocations() - before;
}

}  // namespace

TEST_CASE("a warm compiled codec encodes and decodes into reused buffers with no allocation",
          "[alloc]") {
    const std::string spec = GENERATE(
        "cast:to=bf16", "cast:to=f16", "rangeq:bits=8", "lossless", "topk:density=0.001",
        "topk:density=0.3", "threshold:value=0.002", "dgc:density=0.01", "sidco:density=0.01",
        "fft:density=0.1", "dct:density=0.1", "topk:density=0.01,values=rangeq");
    const std::size_t n = GENERATE(std::size_t{16384}, std::size_t{1} << 20);
    INFO(spec << " on " << n << " values");
    const std::vector<float> x = gradient(n);
    const TensorMeta meta{"t", DType::f32, {n}};
    const Codec codec = Codec::compile(spec);
    std::vector<std::uint8_t> out(codec.max_encoded_size(meta));
    std::vector<float> y(n);

    const std::size_t warm = codec.encode_into(meta, std::as_bytes(std::span(x)), out);
    const std::vector<std::uint8_t> first(out.begin(), out.begin() + static_cast<long>(warm));
    codec.decode_into(meta, first, std::as_writable_bytes(std::span(y)));
    const std::vector<float> first_decoded = y;

    for (int call = 0; call < 3; ++call) {
        const Counted e = counted_encode(codec, meta, x, out);
        CHECK(e.allocations == 0);
        REQUIRE(std::vector<std::uint8_t>(out.begin(), out.begin() + static_cast<long>(e.size)) ==
                first);
        CHECK(counted_decode(codec, meta, first, y) == 0);
        REQUIRE(y == first_decoded);
    }
    // The reused scratch changes nothing: the one-off encode writes the same payload.
    CHECK(codec.encode(meta, std::as_bytes(std::span(x))) == first);
}

TEST_CASE("a warm compiled codec on f16 tensors encodes and decodes with no allocation",
          "[alloc]") {
    const std::string spec = GENERATE("rangeq:bits=6", "topk:density=0.01", "fft:density=0.1");
    INFO(spec);
    const std::size_t n = 50000;
    std::vector<std::uint16_t> half(n);
    const TensorMeta meta{"h", DType::f16, {n}};
    store_float32(gradient(n), DType::f16, std::as_writable_bytes(std::span(half)), meta.name);

    const Codec codec = Codec::compile(spec);
    std::vector<std::uint8_t> out(codec.max_encoded_size(meta));
    std::vector<std::uint16_t> back(n);
    const auto values = std::as_bytes(std::span(half));
    const std::size_t size = codec.encode_into(meta, values, out);
    codec.decode_into(meta, std::span(out).first(size), std::as_writable_bytes(std::span(back)));

    const std::uint64_t before = testing::heap_allocations();
    const std::size_t again = codec.encode_into(meta, values, out);
    codec.decode_into(meta, std::span(out).first(again), std::as_writable_bytes(std::span(back)));
    CHECK(testing::heap_allocations() - before == 0);
    CHECK(again == size);
}
