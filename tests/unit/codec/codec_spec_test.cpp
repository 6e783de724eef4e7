#include <catch2/catch.hpp>

#include "expect_error.hpp"
#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"

using namespace gradcodec;
using gradcodec::testing::thrown_error;

TEST_CASE("a codec spec parses into a name and ordered keys", "[codec_spec]") {
    const CodecSpec spec = parse_codec_spec("topk:density=0.01,values=f16");
    CHECK(spec.name == "topk");
    REQUIRE(spec.params.size() == 2);
    CHECK(spec.params[0].first == "density");
    CHECK(spec.get("values") == "f16");
    CHECK(spec.to_string() == "topk:density=0.01,values=f16");
}

TEST_CASE("a codec spec without keys is just a name", "[codec_spec]") {
    CHECK(parse_codec_spec("lossless").params.empty());
}

TEST_CASE("malformed codec specs are usage errors", "[codec_spec]") {
    for (const char* bad :
         {"", ":a=1", "cast:to", "cast:=f16", "cast:to=", "cast:to=f16,to=bf16"}) {
        INFO(bad);
        const auto e = thrown_error([&] { parse_codec_spec(bad); });
        CHECK(e.kind() == ErrorKind::usage);
    }
}

TEST_CASE("an unknown codec name lists the valid ones", "[codec_spec]") {
    const auto e = thrown_error([] { validate_codec_spec(parse_codec_spec("zip")); });
    CHECK(e.kind() == ErrorKind::usage);
    CHECK_THAT(e.what(), Catch::Contains("lossless") && Catch::Contains("cast"));
}

TEST_CASE("an unknown key or value lists what is valid", "[codec_spec]") {
    const auto key = thrown_error([] { validate_codec_spec(parse_codec_spec("cast:too=f16")); });
    CHECK_THAT(key.what(),
               Catch::Contains("unknown key 'too'") && Catch::Contains("valid keys: to"));
    const auto value = thrown_error([] { validate_codec_spec(parse_codec_spec("cast:to=f8")); });
    CHECK_THAT(value.what(), Catch::Contains("one of f16|bf16"));
    const auto range =
        thrown_error([] { validate_codec_spec(parse_codec_spec("lossless:level=99")); });
    CHECK_THAT(range.what(), Catch::Contains("-100..19"));
}
