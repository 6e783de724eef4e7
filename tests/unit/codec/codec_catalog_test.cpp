// The registry as front ends read it (codec_catalog): every row is complete, rows sharing an id
// agree on the payload, the defaults a row states are the ones its bare name takes, and the
// --target knob a row declares is a key the codec accepts.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gradcodec/gradcodec.hpp"
#include "test_data.hpp"

using namespace gradcodec;
using gradcodec::testing::as_bytes_of;

namespace {

// "density=0.01, values=f16" as spec keys: "density=0.01,values=f16".
std::string spec_keys(std::string_view defaults) {
    std::string keys(defaults);
    keys.erase(std::remove(keys.begin(), keys.end(), ' '), keys.end());
    return keys;
}

// A spec whose stochastic codec draws the same numbers each time.
std::string seeded(const CodecCatalogEntry& c, std::string spec) {
    if (!c.draws_seed) return spec;
    return spec + (spec.find(':') == std::string::npos ? ":" : ",") + "seed=11";
}

}  // namespace

TEST_CASE("every catalog row names a codec, a payload and a summary") {
    const auto catalog = codec_catalog();
    REQUIRE(catalog.size() == list_codecs().size());
    std::map<std::uint16_t, std::string_view> payload_of;
    for (const CodecCatalogEntry& c : catalog) {
        INFO(c.name);
        CHECK(!c.name.empty());
        CHECK(!c.summary.empty());
        CHECK(!c.payload.empty());
        CHECK(codec_name(c.id) == c.payload);
        const auto [it, fresh] = payload_of.emplace(c.id, c.payload);
        CHECK((fresh || it->second == c.payload));
        CHECK(std::count_if(catalog.begin(), catalog.end(),
                            [&](const CodecCatalogEntry& o) { return o.name == c.name; }) == 1);
    }
}

TEST_CASE("a row's defaults are what its bare name encodes") {
    const std::vector<float> values = gradcodec::testing::laplace_values(4096, 3);
    const TensorMeta meta{"t", DType::f32, {64, 64}};
    int compared = 0;
    for (const CodecCatalogEntry& c : codec_catalog()) {
        INFO(c.name << " defaults '" << c.defaults << "'");
        const std::string bare = seeded(c, std::string(c.name));
        if (c.name == "threshold") {
            // Its value= has no default: the bare name is refused, naming the key.
            CHECK_THROWS_WITH(validate_codec_spec(parse_codec_spec(bare)),
                              Catch::Contains("value=T"));
            continue;
        }
        if (c.defaults.empty()) continue;
        const std::string stated = seeded(c, std::string(c.name) + ":" + spec_keys(c.defaults));
        const EncodedTensor a = encode_tensor(parse_codec_spec(bare), meta, as_bytes_of(values));
        const EncodedTensor b = encode_tensor(parse_codec_spec(stated), meta, as_bytes_of(values));
        CHECK(a.codec_id == c.id);
        CHECK(a.payload == b.payload);
        ++compared;
    }
    CHECK(compared >= 14);
}

TEST_CASE("a row's --target knob is a key its codec takes, on the ladder it declares") {
    int knobs = 0;
    for (const CodecCatalogEntry& c : codec_catalog()) {
        INFO(c.name);
        if (c.knob.kind == KnobKind::none) {
            CHECK(c.knob.key.empty());
            CHECK(!c.knob.pointwise);
            continue;
        }
        ++knobs;
        REQUIRE(!c.knob.key.empty());
        std::vector<std::string> settings;
        if (c.knob.kind == KnobKind::density) settings = {"0.001", "0.5", "1"};
        if (c.knob.kind == KnobKind::type) settings = {"f16", "bf16"};
        if (c.knob.kind == KnobKind::ladder) {
            REQUIRE(!c.knob.ladder.empty());
            CHECK(std::is_sorted(c.knob.ladder.begin(), c.knob.ladder.end()));
            for (const int step : c.knob.ladder) settings.push_back(std::to_string(step));
        }
        for (const std::string& value : settings) {
            const std::string spec =
                std::string(c.name) + ":" + std::string(c.knob.key) + "=" + value;
            INFO(spec);
            CHECK_NOTHROW(validate_codec_spec(parse_codec_spec(spec)));
        }
    }
    CHECK(knobs >= 9);
}

TEST_CASE("the rows that run per HDF5 chunk are the codecs that encode any run of values") {
    std::vector<std::string> per_chunk, whole;
    for (const CodecCatalogEntry& c : codec_catalog())
        (c.filter_ok ? per_chunk : whole).emplace_back(c.name);
    // fft and dct transform the whole tensor, lowrank factors it as a matrix.
    CHECK(whole == std::vector<std::string>{"fft", "dct", "lowrank"});
    CHECK(per_chunk.size() == 13);
}
