#include <xxhash.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/cpu_features.hpp"
#include "format/checksum.hpp"

using namespace gradcodec;

namespace {

std::vector<const ChecksumImpl*> builds_this_cpu_runs() {
    std::vector<const ChecksumImpl*> builds{&kChecksumBaseline};
#if defined(GRADCODEC_CHECKSUM_AVX2)
    if (cpu_has_avx2()) builds.push_back(&kChecksumAvx2);
#endif
    return builds;
}

std::vector<std::uint8_t> random_bytes(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<std::uint8_t> bytes(n);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    return bytes;
}

// The digest of `bytes` fed to `build` in pieces of random sizes up to `largest`.
std::uint64_t digest_in_pieces(const ChecksumImpl& build, std::span<const std::uint8_t> bytes,
                               std::size_t largest, unsigned seed) {
    std::mt19937 rng(seed);
    void* state = build.create();
    REQUIRE(state != nullptr);
    for (std::size_t first = 0; first < bytes.size();) {
        const std::size_t size = std::min<std::size_t>(rng() % (largest + 1), bytes.size() - first);
        build.update(state, bytes.data() + first, size);
        first += size;
    }
    const std::uint64_t digest = build.digest(state);
    build.destroy(state);
    return digest;
}

}  // namespace

TEST_CASE("every checksum build hashes as xxHash's library does, however the bytes are cut",
          "[checksum]") {
    // Lengths around XXH3's internal boundaries (16, 128, 240 bytes, 64-byte stripes, 1 KiB
    // blocks, the 256-byte streaming buffer) and far beyond them.
    std::vector<std::size_t> lengths;
    for (std::size_t n = 0; n <= 1100; ++n) lengths.push_back(n);
    for (std::size_t n : {4095, 4096, 4097, 65'543, 1'048'579}) lengths.push_back(n);
    const std::vector<std::uint8_t> bytes = random_bytes(lengths.back(), 7);
    for (const ChecksumImpl* build : builds_this_cpu_runs()) {
        INFO("build " << build->name);
        for (std::size_t n : lengths) {
            INFO(n << " bytes");
            const std::span<const std::uint8_t> part(bytes.data(), n);
            const std::uint64_t expected = XXH3_64bits(part.data(), part.size());
            REQUIRE(build->hash(part.data(), part.size()) == expected);
            REQUIRE(digest_in_pieces(*build, part, 300, static_cast<unsigned>(n)) == expected);
        }
        const std::span<const std::uint8_t> all(bytes);
        CHECK(digest_in_pieces(*build, all.first(20'000), 1, 3) == XXH3_64bits(all.data(), 20'000));
        CHECK(digest_in_pieces(*build, all, 1 << 18, 5) == XXH3_64bits(all.data(), all.size()));
    }
}

TEST_CASE("Checksum runs the AVX2 build exactly where the CPU has AVX2", "[checksum]") {
    const std::string chosen = chosen_checksum_impl().name;
#if defined(GRADCODEC_CHECKSUM_AVX2)
    __builtin_cpu_init();
    CHECK(chosen == (__builtin_cpu_supports("avx2") ? "avx2" : "baseline"));
#else
    CHECK(chosen == "baseline");
#endif
    const std::vector<std::uint8_t> bytes = random_bytes(5000, 11);
    Checksum sum;
    sum.update(std::span(bytes).first(1234));
    sum.update(std::span(bytes).subspan(1234));
    CHECK(sum.digest() == XXH3_64bits(bytes.data(), bytes.size()));
    CHECK(checksum(bytes) == XXH3_64bits(bytes.data(), bytes.size()));
}
