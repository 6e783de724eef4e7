// Linked into the gradcodec CLI of the fuzz build only (tests/fuzz/CMakeLists.txt), for
// fuzz_hdf5, which runs the CLI in a child process where libFuzzer cannot see its coverage.
// Sanitizer coverage hands each instrumented module's 8-bit edge counters to this hook at
// start-up; at exit the counters are written to the file GRADCODEC_FUZZ_COVERAGE names, and
// fuzz_hdf5 folds them into its own extra counters. A child that crashes writes nothing:
// the crash is reported by other means.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace {

struct CounterRegion {
    const std::uint8_t* start;
    const std::uint8_t* stop;
};

CounterRegion g_regions[16];
std::size_t g_region_count = 0;

void write_all(int fd, const std::uint8_t* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = write(fd, data, size);
        if (n <= 0) return;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
}

__attribute__((destructor)) void export_counters() {
    const char* path = std::getenv("GRADCODEC_FUZZ_COVERAGE");
    if (path == nullptr || *path == '\0') return;
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return;
    for (std::size_t i = 0; i < g_region_count; ++i) {
        write_all(fd, g_regions[i].start,
                  static_cast<std::size_t>(g_regions[i].stop - g_regions[i].start));
    }
    close(fd);
}

}  // namespace

extern "C" void __sanitizer_cov_8bit_counters_init(std::uint8_t* start, std::uint8_t* stop) {
    if (g_region_count < sizeof g_regions / sizeof g_regions[0] && start < stop)
        g_regions[g_region_count++] = {start, stop};
}
