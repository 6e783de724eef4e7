#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "../../tools/golden_digest.hpp"

// Every format-1.0 stream in samples/golden/ decodes forever to its committed checksum.
// A failure here means a change broke compatibility: fix the decoder, never the checksum.
TEST_CASE("every golden stream decodes to its committed checksum", "[golden]") {
    const std::string dir = GRADCODEC_SAMPLES_DIR "/golden/";
    std::ifstream list(dir + "CHECKSUMS");
    REQUIRE(list.good());
    std::string line;
    int streams = 0;
    while (std::getline(list, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string expected, name;
        fields >> expected >> name;
        INFO(name);
        char actual[17];
        std::snprintf(
            actual, sizeof actual, "%016llx",
            static_cast<unsigned long long>(gradcodec::testing::decoded_digest(dir + name)));
        CHECK(std::string(actual) == expected);
        ++streams;
    }
    CHECK(streams >= 2);
}
