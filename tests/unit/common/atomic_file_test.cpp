#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "gradcodec/atomic_file.hpp"

using namespace gradcodec;
using gradcodec::testing::thrown_error;
namespace fs = std::filesystem;

namespace {

// A fresh directory, removed with everything in it at the end of the test.
class TempDir {
  public:
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "gradcodec-atomic-XXXXXX").string();
        if (!mkdtemp(pattern.data())) FAIL("mkdtemp failed");
        path_ = pattern;
    }
    ~TempDir() { fs::remove_all(path_); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string operator/(const std::string& name) const { return (path_ / name).string(); }
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& entry : fs::directory_iterator(path_))
            out.push_back(entry.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }

  private:
    fs::path path_;
};

std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void put(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

void write_text(AtomicFile& file, const std::string& text) {
    file.write({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

bool refused_as_usage(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.kind() == ErrorKind::usage;
    }
    return false;
}

}  // namespace

TEST_CASE("AtomicFile publishes its file only on commit") {
    TempDir dir;
    const std::string path = dir / "out.bin";
    {
        AtomicFile file(path, false);
        write_text(file, "hello ");
        write_text(file, "world");
        CHECK(dir.names().empty());  // nothing visible while it is built
        file.commit();
        CHECK(file.committed());
    }
    CHECK(contents(path) == "hello world");
    CHECK(dir.names() == std::vector<std::string>{"out.bin"});
    struct stat st {};
    REQUIRE(stat(path.c_str(), &st) == 0);
    const mode_t mask = umask(0);
    umask(mask);
    CHECK((st.st_mode & 0777) == (0666 & ~mask));
}

TEST_CASE("AtomicFile leaves nothing when aborted or destroyed uncommitted") {
    TempDir dir;
    const std::string path = dir / "out.bin";
    {
        AtomicFile file(path, false);
        write_text(file, "partial");
    }
    CHECK(dir.names().empty());
    AtomicFile file(path, false);
    write_text(file, "partial");
    file.abort();
    file.abort();
    CHECK(dir.names().empty());
    CHECK(refused_as_usage([&] { file.commit(); }));
    CHECK(dir.names().empty());
}

TEST_CASE("AtomicFile refuses an existing file unless overwriting") {
    TempDir dir;
    const std::string path = dir / "out.bin";
    put(path, "old");
    REQUIRE(chmod(path.c_str(), 0640) == 0);
    CHECK_THROWS_AS(AtomicFile(path, false), FileExistsError);
    CHECK_THROWS_WITH(AtomicFile(path, false), path + ": already exists");
    CHECK(contents(path) == "old");

    AtomicFile file(path, true);
    write_text(file, "new");
    CHECK(contents(path) == "old");
    file.commit();
    CHECK(contents(path) == "new");
    struct stat st {};
    REQUIRE(stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0640);  // the replaced file's mode
    CHECK(dir.names() == std::vector<std::string>{"out.bin"});
}

TEST_CASE("AtomicFile refuses at commit a name that appeared meanwhile") {
    TempDir dir;
    const std::string path = dir / "out.bin";
    AtomicFile first(path, false);
    AtomicFile second(path, false);
    write_text(first, "first");
    write_text(second, "second");
    first.commit();
    CHECK_THROWS_AS(second.commit(), FileExistsError);
    CHECK_FALSE(second.committed());
    second.abort();
    CHECK(contents(path) == "first");
    CHECK(dir.names() == std::vector<std::string>{"out.bin"});

    AtomicFile third(path, true);
    AtomicFile fourth(path, true);
    write_text(third, "third");
    write_text(fourth, "fourth");
    third.commit();
    fourth.commit();
    CHECK(contents(path) == "fourth");
    CHECK(dir.names() == std::vector<std::string>{"out.bin"});
}

TEST_CASE("AtomicFile never replaces a directory, device, FIFO or symbolic link") {
    TempDir dir;
    const std::string victim = dir / "victim";
    put(victim, "precious");
    const std::string link = dir / "link";
    REQUIRE(symlink(victim.c_str(), link.c_str()) == 0);
    const std::string fifo = dir / "fifo";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    const std::string sub = dir / "sub";
    REQUIRE(mkdir(sub.c_str(), 0700) == 0);
    for (bool overwrite : {false, true}) {
        for (const std::string& target : {link, fifo, sub, std::string("/dev/null")}) {
            INFO(target << " overwrite=" << overwrite);
            CHECK(refused_as_usage([&] { AtomicFile file(target, overwrite); }));
        }
    }
    CHECK_THROWS_WITH(AtomicFile(sub, true), sub + ": is a directory");
    // One that appears while the file is built is not replaced either.
    const std::string late = dir / "late";
    AtomicFile file(late, true);
    write_text(file, "x");
    REQUIRE(mkfifo(late.c_str(), 0600) == 0);
    CHECK(refused_as_usage([&] { file.commit(); }));
    file.abort();
    struct stat st {};
    REQUIRE(lstat(late.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
    CHECK(contents(victim) == "precious");
    CHECK(dir.names() == std::vector<std::string>{"fifo", "late", "link", "sub", "victim"});
}

TEST_CASE("AtomicFile tells its hooks the name of a named temporary") {
    // O_TMPFILE files have no name; the hooks see one only when overwriting links a name to
    // rename, or where O_TMPFILE is missing. Either way every tracked name is gone at the end.
    static std::vector<std::string> tracked;
    static int untracked = 0;
    tracked.clear();
    untracked = 0;
    const TempNameHooks hooks{[](const char* p) {
                                  tracked.emplace_back(p);
                                  return true;
                              },
                              [] { ++untracked; }};
    TempDir dir;
    const std::string path = dir / "out.bin";
    put(path, "old");
    {
        AtomicFile file(path, true, hooks);
        write_text(file, "new");
        file.commit();
    }
    CHECK(contents(path) == "new");
    CHECK_FALSE(tracked.empty());
    for (const auto& name : tracked) CHECK(access(name.c_str(), F_OK) != 0);
    CHECK(untracked >= 1);
    CHECK(dir.names() == std::vector<std::string>{"out.bin"});
}

TEST_CASE("AtomicFile reports a missing directory as an I/O error") {
    TempDir dir;
    const auto e = thrown_error([&] { AtomicFile file(dir / "missing/out.bin", false); });
    CHECK(e.kind() == ErrorKind::io);
}

TEST_CASE("AtomicFile serves StreamWriter as its sink") {
    TempDir dir;
    const std::string path = dir / "dump.gcs";
    VectorSink expected;
    {
        StreamWriter writer(expected);
        writer.write(GroupRecord{"/", {}});
        writer.finish();
    }
    AtomicFile file(path, false);
    StreamWriter writer(file);
    writer.write(GroupRecord{"/", {}});
    writer.finish();
    file.commit();
    const std::string got = contents(path);
    CHECK(std::vector<std::uint8_t>(got.begin(), got.end()) == expected.bytes);
}
