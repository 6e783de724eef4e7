// fft and dct values depend on the FFT's rounding, so their conformance is a bound against
// the exact-arithmetic decode (format-spec/codec-fft.md, "Conformance"), not a checksum.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "frequency_reference.hpp"
#include "gradcodec/gradcodec.hpp"

using namespace gradcodec;

namespace {

struct Listed {
    std::string stream;
    std::string reference;
};

std::vector<Listed> golden_references() {
    std::ifstream list(GRADCODEC_SAMPLES_DIR "/golden/REFERENCES");
    std::vector<Listed> out;
    for (std::string line; std::getline(list, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        Listed l;
        fields >> l.stream >> l.reference;
        out.push_back(l);
    }
    return out;
}

std::vector<float> read_f32(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<float> out(bytes.size() / 4);
    std::memcpy(out.data(), bytes.data(), out.size() * 4);
    return out;
}

std::vector<TensorRecord> frequency_tensors(const std::string& path) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                         &std::fclose);
    REQUIRE(file);
    FileSource source(file.get());
    StreamReader reader(source);
    std::vector<TensorRecord> out;
    while (auto record = reader.next()) {
        auto* t = std::get_if<TensorRecord>(&*record);
        if (t && (t->codec_id == kCodecFft || t->codec_id == kCodecDct))
            out.push_back(std::move(*t));
    }
    return out;
}

// The largest error of `decoded` as a fraction of the bound: (ceil(log2 m) + 2)·2^-23·S_c
// plus one unit in the last place at the exact value.
double worst_fraction_of_bound(const testing::FrequencyReference& exact,
                               std::span<const float> decoded) {
    double worst = 0;
    for (std::size_t i = 0; i < decoded.size(); ++i) {
        const double bound =
            testing::arithmetic_allowance(exact, i) + testing::binary32_ulp(exact.values[i]);
        worst = std::max(worst, std::fabs(decoded[i] - exact.values[i]) / bound);
    }
    return worst;
}

}  // namespace

TEST_CASE("every golden fft and dct stream decodes within the bound of its reference outputs",
          "[golden][frequency]") {
    const auto listed = golden_references();
    REQUIRE(listed.size() >= 5);
    for (const Listed& l : listed) {
        INFO(l.stream);
        const auto reference = read_f32(GRADCODEC_SAMPLES_DIR "/golden/" + l.reference);
        std::size_t at = 0;
        for (const TensorRecord& t :
             frequency_tensors(GRADCODEC_SAMPLES_DIR "/golden/" + l.stream)) {
            const TensorMeta meta{t.path, t.dtype, t.shape};
            std::vector<float> decoded(meta.element_count());
            decode_tensor(t.codec_id, meta, t.payload, std::as_writable_bytes(std::span(decoded)));
            const auto exact =
                testing::frequency_reference(t.codec_id, meta.element_count(), t.payload);
            REQUIRE(at + decoded.size() <= reference.size());
            std::size_t outside = 0;
            for (std::size_t i = 0; i < decoded.size(); ++i, ++at) {
                // The shipped value is the exact one rounded to binary32 (libm's cos may
                // differ in the last bit between platforms, hence one ulp, not half).
                CHECK(std::fabs(reference[at] - exact.values[i]) <=
                      testing::binary32_ulp(exact.values[i]));
                // A conforming decoder lies within the bound of the exact value, so within
                // the bound plus the file's own rounding of the shipped one.
                const double bound = testing::arithmetic_allowance(exact, i) +
                                     1.5 * testing::binary32_ulp(reference[at]);
                outside += std::fabs(decoded[i] - reference[at]) > bound ? 1 : 0;
            }
            CHECK(outside == 0);
        }
        CHECK(at == reference.size());
    }
}

TEST_CASE("the fft and dct decoders stay within the conformance bound for every chunk shape",
          "[frequency]") {
    std::mt19937_64 rng(11);
    std::student_t_distribution<float> heavy(2.5f);
    struct Case {
        const char* spec;
        std::size_t n;
    };
    for (const Case c : {Case{"fft:density=1,chunk=1,values=f32", 50},
                         Case{"fft:density=1,chunk=2,values=f32", 51},
                         Case{"fft:density=0.5,chunk=7,values=f32", 1000},
                         Case{"fft:density=0.3,chunk=256,values=f32", 20000},
                         Case{"fft:density=0.05,chunk=4096,bits=12", 8192},
                         Case{"fft:density=0.0005,chunk=65537,values=f32", 65600},
                         Case{"dct:density=1,chunk=3,values=f32", 1000},
                         Case{"dct:density=0.3,chunk=64,values=f32", 20000},
                         Case{"dct:density=0.05,chunk=1000,values=f16", 20000},
                         Case{"dct:density=0.0005,chunk=65536,values=f32", 65600}}) {
        INFO(c.spec);
        std::vector<float> x(c.n);
        for (auto& v : x) v = heavy(rng) * 1e-3f;
        const TensorMeta meta{"random", DType::f32, {c.n}};
        const auto e = encode_tensor(parse_codec_spec(c.spec), meta, std::as_bytes(std::span(x)));
        std::vector<float> decoded(c.n);
        decode_tensor(e.codec_id, meta, e.payload, std::as_writable_bytes(std::span(decoded)));
        const auto exact = testing::frequency_reference(e.codec_id, c.n, e.payload);
        CHECK(worst_fraction_of_bound(exact, decoded) <= 1.0);
    }
}

TEST_CASE("a decoder accumulating in plain binary32 sums can fall outside the bound",
          "[frequency]") {
    // The bound is not vacuous: a naive O(m^2) DFT in binary32 on a long chunk breaks it.
    std::mt19937_64 rng(3);
    std::normal_distribution<float> normal;
    const std::size_t m = 2048;
    std::vector<float> x(m);
    for (auto& v : x) v = normal(rng);
    const TensorMeta meta{"naive", DType::f32, {m}};
    const auto e = encode_tensor(parse_codec_spec("dct:density=1,chunk=2048,values=f32"), meta,
                                 std::as_bytes(std::span(x)));
    const auto exact = testing::frequency_reference(e.codec_id, m, e.payload);
    // The kept coefficients are all of them, in order, after the 13-byte header and positions.
    std::vector<float> z(m);
    {
        ByteReader r(e.payload, "naive");
        (void)read_frequency_header(r);
        (void)decode_positions(r, m);
        decode_values(r, z);
    }
    std::vector<float> naive(m);
    for (std::size_t j = 0; j < m; ++j) {
        float y = 0;
        for (std::size_t k = 0; k < m; ++k) {
            const float s = std::sqrt((k == 0 ? 1.0f : 2.0f) / static_cast<float>(m));
            y += s * z[k] *
                 std::cos(static_cast<float>(M_PI) * (static_cast<float>(j) + 0.5f) *
                          static_cast<float>(k) / static_cast<float>(m));
        }
        naive[j] = y;
    }
    CHECK(worst_fraction_of_bound(exact, naive) > 1.0);
}
