// The golden test decodes what CHECKSUMS lists; this one makes sure nothing escapes the list:
// every stream in samples/golden/ has a checksum line, and every line names a stream there.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

TEST_CASE("every golden stream has a committed checksum and every checksum a stream",
          "[golden]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(GRADCODEC_SAMPLES_DIR) / "golden";
    std::set<std::string> listed;
    std::ifstream list(dir / "CHECKSUMS");
    REQUIRE(list.good());
    for (std::string line; std::getline(list, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string digest, name;
        fields >> digest >> name;
        CHECK(digest.size() == 16);
        CHECK(listed.insert(name).second);  // one line per stream
    }
    std::set<std::string> present;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() == ".gcs") present.insert(entry.path().filename().string());
    }
    CHECK(present == listed);
}
