// Where one raw encode's CPU time goes inside a fresh process, phase by phase: getting the
// input into memory, then encoding it twice (the second pass runs over memory the first
// touched). Each way needs its own process, since the point is first touches:
//   raw_phases FILE SPEC mmap|read-huge|read   (FILE: raw f32, e.g. from make_gradients raw)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gradcodec/gradcodec.hpp"

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

struct Usage {
    double cpu_ms;
    long faults;
};

Usage now() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    const double seconds = static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
                           1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
    return {1e3 * seconds, u.ru_minflt};
}

void report(const char* phase, const Usage& from, const Usage& to) {
    std::printf("%-16s %8.1f ms CPU %7ld page faults\n", phase, to.cpu_ms - from.cpu_ms,
                to.faults - from.faults);
}

std::byte* fresh(std::size_t bytes, bool huge) {
    const std::size_t capacity = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, capacity);
    if (p == nullptr) std::exit(1);
    if (huge) madvise(p, capacity, MADV_HUGEPAGE);
    return static_cast<std::byte*>(p);
}

const std::byte* input(int fd, std::size_t bytes, const std::string& how) {
    if (how == "mmap") {
        void* p = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        return p == MAP_FAILED ? nullptr : static_cast<const std::byte*>(p);
    }
    std::byte* buffer = fresh(bytes, how == "read-huge");
    for (std::size_t got = 0; got < bytes;) {
        const ssize_t n = read(fd, buffer + got, bytes - got);
        if (n <= 0) return nullptr;
        got += static_cast<std::size_t>(n);
    }
    return buffer;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: raw_phases FILE SPEC mmap|read-huge|read\n");
        return 2;
    }
    const Usage start = now();
    const int fd = open(argv[1], O_RDONLY);
    struct stat info {};
    if (fd < 0 || fstat(fd, &info) != 0) return 4;
    const auto bytes = static_cast<std::size_t>(info.st_size) / 4 * 4;
    const gradcodec::TensorMeta meta{argv[1], gradcodec::DType::f32, {bytes / 4}};
    const gradcodec::Codec codec = gradcodec::Codec::compile(argv[2]);
    const std::byte* values = input(fd, bytes, argv[3]);
    if (values == nullptr) return 4;
    const Usage read_in = now();
    const auto capacity = static_cast<std::size_t>(codec.max_encoded_size(meta));
    const std::span<std::uint8_t> out(reinterpret_cast<std::uint8_t*>(fresh(capacity, true)),
                                      capacity);
    codec.encode_into(meta, {values, bytes}, out);
    const Usage first = now();
    codec.encode_into(meta, {values, bytes}, out);
    const Usage second = now();
    report(argv[3], start, read_in);
    report("encode, first", read_in, first);
    report("encode, second", first, second);
    return 0;
}
