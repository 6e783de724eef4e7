// The golden tests decode what CHECKSUMS and REFERENCES list; this one makes sure nothing
// escapes the lists: every stream in samples/golden/ is listed in exactly one of them, every
// line names a stream there, and every fft/dct reference file is present.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

// The first two fields of every line that is not a comment.
std::vector<std::pair<std::string, std::string>> listed_lines(const std::filesystem::path& file) {
    std::ifstream list(file);
    REQUIRE(list.good());
    std::vector<std::pair<std::string, std::string>> out;
    for (std::string line; std::getline(list, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string first, second;
        fields >> first >> second;
        out.emplace_back(first, second);
    }
    return out;
}

}  // namespace

TEST_CASE("every golden stream has a committed checksum or reference and every line a stream",
          "[golden]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(GRADCODEC_SAMPLES_DIR) / "golden";
    std::set<std::string> listed;
    for (const auto& [digest, name] : listed_lines(dir / "CHECKSUMS")) {
        CHECK(digest.size() == 16);
        CHECK(listed.insert(name).second);  // one line per stream
    }
    for (const auto& [name, reference] : listed_lines(dir / "REFERENCES")) {
        CHECK(listed.insert(name).second);  // in one list only
        CHECK(fs::exists(dir / reference));
        CHECK((name.starts_with("fft") || name.starts_with("dct")));
    }
    std::set<std::string> present;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() == ".gcs") present.insert(entry.path().filename().string());
    }
    CHECK(present == listed);
}
