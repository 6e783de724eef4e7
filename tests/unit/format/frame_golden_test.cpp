#include <xxhash.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "gradcodec/gradcodec.hpp"

using namespace gradcodec;
using gradcodec::testing::thrown_error;

namespace {

const std::filesystem::path kFrames = std::filesystem::path(GRADCODEC_SAMPLES_DIR) / "frames";

std::vector<std::uint8_t> read_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("every golden frame decodes to its committed digest", "[frame][golden]") {
    std::ifstream listing(kFrames / "CHECKSUMS");
    REQUIRE(listing);
    std::string line;
    int checked = 0;
    while (std::getline(listing, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string digest, file;
        fields >> digest >> file;
        INFO(file);
        const auto frame = read_bytes(kFrames / file);
        REQUIRE(!frame.empty());
        const FrameInfo info = read_frame_info(frame);
        std::vector<std::byte> values(info.element_count * dtype_size(info.dtype));
        decode_frame_into(frame, values);
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx",
                      static_cast<unsigned long long>(XXH3_64bits(values.data(), values.size())));
        CHECK(digest == hex);
        ++checked;
    }
    CHECK(checked >= 8);
}

TEST_CASE("every bad frame is refused as damaged", "[frame][golden]") {
    int checked = 0;
    for (const auto& entry : std::filesystem::directory_iterator(kFrames / "bad")) {
        if (entry.path().filename() == "good.gcf") continue;
        INFO(entry.path().filename().string());
        const auto frame = read_bytes(entry.path());
        std::vector<std::byte> out(3 * 4);
        const auto e = thrown_error([&] { decode_frame_into(frame, out); });
        CHECK(e.kind() == ErrorKind::damaged_stream);
        ++checked;
    }
    CHECK(checked == 10);
}

TEST_CASE("the good frame beside the bad ones decodes", "[frame][golden]") {
    const auto frame = read_bytes(kFrames / "bad" / "good.gcf");
    std::vector<float> out(3);
    decode_frame_into(frame, std::as_writable_bytes(std::span(out)));
    CHECK(out == std::vector<float>{1.0f, 2.0f, 3.0f});
}
