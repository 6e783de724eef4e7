// Runs one command and prints what it cost: "cpu_us wall_us peak_rss_kib status", CPU time
// (user + system) and peak RSS from the command's own rusage, status as a shell gives it
// (the exit code, or 128 + the signal). Its standard output goes to OUT.
//
// scripts/measure-process starts commands through this program because a process's peak RSS
// carries over the peak of whatever executed it: started by Python directly, every command
// showed at least the interpreter's 14 MiB. Started from here, a command's floor is this
// program's RSS, well under 2 MiB.
//
// usage: measured_run OUT COMMAND [ARGS...]
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace {

long long microseconds(const timeval& t) {
    return static_cast<long long>(t.tv_sec) * 1000000 + t.tv_usec;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: measured_run OUT COMMAND [ARGS...]\n");
        return 2;
    }
    const int out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        std::fprintf(stderr, "measured_run: %s: %s\n", argv[1], std::strerror(errno));
        return 2;
    }
    const auto start = std::chrono::steady_clock::now();
    const pid_t child = fork();
    if (child < 0) {
        std::fprintf(stderr, "measured_run: fork: %s\n", std::strerror(errno));
        return 2;
    }
    if (child == 0) {
        if (dup2(out, STDOUT_FILENO) < 0) _exit(127);
        execvp(argv[2], argv + 2);
        std::fprintf(stderr, "measured_run: %s: %s\n", argv[2], std::strerror(errno));
        _exit(127);
    }
    int status = 0;
    rusage usage{};
    while (wait4(child, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            std::fprintf(stderr, "measured_run: wait4: %s\n", std::strerror(errno));
            return 2;
        }
    }
    const auto wall = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - start);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    const long long cpu = microseconds(usage.ru_utime) + microseconds(usage.ru_stime);
    std::printf("%lld %lld %ld %d\n", cpu, static_cast<long long>(wall.count()), usage.ru_maxrss,
                code);
    return 0;
}
