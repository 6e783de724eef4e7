#include <catch2/catch.hpp>

#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"

using namespace gradcodec;

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
        try {
            parse_codec_spec(bad);
            FAIL("accepted");
        } catch (const Error& e) {
            CHECK(e.kind() == ErrorKind::usage);
        }
    }
}

TEST_CASE("an unknown codec name lists the valid ones", "[codec_spec]") {
    try {
        validate_codec_spec(parse_codec_spec("zip"));
        FAIL("accepted");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::usage);
        CHECK_THAT(e.what(), Catch::Contains("lossless") && Catch::Contains("cast"));
    }
}

TEST_CASE("an unknown key or value lists what is valid", "[codec_spec]") {
    try {
        validate_codec_spec(parse_codec_spec("cast:too=f16"));
        FAIL("accepted");
    } catch (const Error& e) {
        CHECK_THAT(e.what(),
                   Catch::Contains("unknown key 'too'") && Catch::Contains("valid keys: to"));
    }
    try {
        validate_codec_spec(parse_codec_spec("cast:to=f8"));
        FAIL("accepted");
    } catch (const Error& e) {
        CHECK_THAT(e.what(), Catch::Contains("one of f16|bf16"));
    }
    try {
        validate_codec_spec(parse_codec_spec("lossless:level=99"));
        FAIL("accepted");
    } catch (const Error& e) {
        CHECK_THAT(e.what(), Catch::Contains("-100..19"));
    }
}
