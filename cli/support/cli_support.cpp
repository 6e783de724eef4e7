#include "support/cli_support.hpp"

#include <fnmatch.h>
#include <sched.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "gradcodec/error.hpp"

namespace gradcodec::cli {

void add_threads_option(CLI::App& command, unsigned& threads) {
    command
        .add_option("-T,--threads", threads,
                    "Threads to use (default 0: every available core). Tensors run in parallel and "
                    "large ones are split; the output is the same for any count")
        ->check(CLI::Range(0u, 1024u))
        ->capture_default_str();
}

unsigned resolve_threads(unsigned requested) {
    if (requested != 0) return requested;
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > 0) {
        return static_cast<unsigned>(CPU_COUNT(&cpus));
    }
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? static_cast<unsigned>(online) : 1;
}

FilePtr open_input(const std::string& path) {
    if (path == "-") return FilePtr(stdin);
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) fail(ErrorKind::io, path + ": cannot open: " + std::strerror(errno));
    return FilePtr(f);
}

std::vector<std::uint64_t> parse_shape(const std::string& text) {
    std::vector<std::uint64_t> shape;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t x = text.find('x', start);
        const std::string part =
            text.substr(start, x == std::string::npos ? std::string::npos : x - start);
        std::uint64_t d = 0;
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), d);
        if (part.empty() || ec != std::errc() || end != part.data() + part.size()) {
            fail(ErrorKind::usage, "--shape '" + text + "': expected dimensions like 1024x1024");
        }
        shape.push_back(d);
        if (x == std::string::npos) break;
        start = x + 1;
    }
    return shape;
}

DType parse_raw_dtype(const std::string& text) {
    for (const char* name : {"f32", "f16", "bf16", "f64"})
        if (text == name) return *dtype_from_name(name);
    fail(ErrorKind::usage, "--raw '" + text + "': expected f32, f16, bf16 or f64");
}

bool selected(const std::string& path, const std::vector<std::string>& globs) {
    if (globs.empty()) return true;
    for (const auto& g : globs) {
        const std::string& subject = !g.empty() && g[0] == '/' ? path : display_name(path);
        if (fnmatch(g.c_str(), subject.c_str(), 0) == 0) return true;
    }
    return false;
}

void finish_stdout() {
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        fail(ErrorKind::io, std::string("standard output: write failed: ") + std::strerror(errno));
    }
}

std::string display_name(const std::string& path) {
    return path.size() > 1 && path[0] == '/' ? path.substr(1) : path;
}

Progress::Progress(std::string verb, bool quiet)
    : verb_(std::move(verb)), enabled_(!quiet && isatty(2)) {}

void Progress::tick(const std::string& name) {
    ++count_;
    if (!enabled_) return;
    if (total_ >= count_) {
        std::fprintf(stderr, "\r\033[K%s %zu/%zu: %s", verb_.c_str(), count_, total_,
                     printable(name).c_str());
    } else {
        std::fprintf(stderr, "\r\033[K%s %zu: %s", verb_.c_str(), count_, printable(name).c_str());
    }
}

Progress::~Progress() {
    if (enabled_ && count_ > 0) std::fprintf(stderr, "\r\033[K");
}

}  // namespace gradcodec::cli
