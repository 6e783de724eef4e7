// libFuzzer target over HDF5 input: each input is written to a file, and the gradcodec CLI of
// this build runs `encode` on it in a child process. libhdf5 parses the file there, so a
// crash inside libhdf5 (which we cannot fix) ends only the child: it is reported and its
// input kept, not counted as a finding. A finding (a trap, so libFuzzer saves the input) is:
//   - a crash, sanitizer report or hang whose stack is in our code, not libhdf5's
//     (crash_origin.hpp says how the two are told apart);
//   - an exit status outside {0, 3, 4}: 2 (usage) never answers a file input;
//   - after a failure, OUTPUT or any other file left in its folder (a temporary);
//   - after success, anything but OUTPUT there, or a stream that `gradcodec decode` refuses
//     (what encode accepts, decode rebuilds);
//   - an input file whose bytes changed.
// The child's coverage reaches libFuzzer through child_coverage.cpp (GRADCODEC_FUZZ_COVERAGE).
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "crash_origin.hpp"

extern "C" char** environ;

namespace {

// The child's edge counters, folded into a fixed window libFuzzer scans after every input.
constexpr std::size_t kChildCounters = std::size_t{1} << 18;
__attribute__((used, section("__libfuzzer_extra_counters")))
std::uint8_t g_child_counters[kChildCounters];

// A child past this much wall time is stopped with SIGABRT, so ASan prints where it was.
constexpr auto kChildWallLimit = std::chrono::seconds(10);
constexpr rlim_t kChildCpuSeconds = 15;
constexpr rlim_t kChildFileBytes = rlim_t{256} << 20;

struct Workspace {
    std::string root, input_dir, input, output_dir, output, decoded, stderr_path, coverage, reports;
};

std::string make_dir(const std::string& path) {
    mkdir(path.c_str(), 0700);
    return path;
}

const Workspace& workspace() {
    static const Workspace w = [] {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/fuzz_hdf5.XXXXXX";
        if (mkdtemp(pattern.data()) == nullptr) {
            std::perror("fuzz_hdf5: mkdtemp");
            std::abort();
        }
        Workspace ws;
        ws.root = pattern;
        ws.input_dir = make_dir(ws.root + "/in");
        ws.input = ws.input_dir + "/input.h5";
        ws.output_dir = make_dir(ws.root + "/out");
        ws.output = ws.output_dir + "/out.gcs";
        ws.decoded = ws.output_dir + "/decoded.h5";
        ws.stderr_path = ws.root + "/stderr";
        ws.coverage = ws.root + "/coverage";
        const char* reports = std::getenv("FUZZ_HDF5_REPORTS");
        ws.reports = make_dir(reports && *reports ? reports : "fuzz_hdf5-libhdf5-crashes");
        return ws;
    }();
    return w;
}

std::string cli_path() {
    const char* path = std::getenv("GRADCODEC_FUZZ_CLI");
    return path && *path ? path : GRADCODEC_FUZZ_CLI;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool write_file(const std::string& path, const std::uint8_t* data, std::size_t size) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return false;
    const bool ok = size == 0 || std::fwrite(data, 1, size, f) == size;
    return std::fclose(f) == 0 && ok;
}

std::set<std::string> entries(const std::string& dir) {
    std::set<std::string> names;
    if (DIR* d = opendir(dir.c_str())) {
        while (const dirent* e = readdir(d)) {
            const std::string name = e->d_name;
            if (name != "." && name != "..") names.insert(name);
        }
        closedir(d);
    }
    return names;
}

// The sanitizers' settings for the child: an error report ends it with SIGABRT (never a
// status gradcodec exits with); a leak report keeps its exit status, so the status is still
// judged; allocations over 512 MiB fail as std::bad_alloc; SIGABRT prints a stack; every
// frame names its module, even one resolved to a source line (crash_origin.hpp reads it).
constexpr const char* kFrameFormat = "stack_trace_format='    #%n %p %F %L %M'";

std::vector<std::string> child_environment(const Workspace& ws) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string entry = *e;
        if (entry.rfind("ASAN_OPTIONS=", 0) == 0 || entry.rfind("UBSAN_OPTIONS=", 0) == 0 ||
            entry.rfind("LSAN_OPTIONS=", 0) == 0 || entry.rfind("GRADCODEC_FUZZ_COVERAGE=", 0) == 0)
            continue;
        env.push_back(entry);
    }
    env.push_back(
        std::string("ASAN_OPTIONS=exitcode=0:abort_on_error=1:handle_abort=1:detect_leaks=1:"
                    "allocator_may_return_null=1:max_allocation_size_mb=512:"
                    "hard_rss_limit_mb=2048:symbolize=1:") +
        kFrameFormat);
    env.push_back(
        std::string("UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1:") +
        kFrameFormat);
    env.push_back(std::string("LSAN_OPTIONS=exitcode=0:") + kFrameFormat);
    env.push_back("GRADCODEC_FUZZ_COVERAGE=" + ws.coverage);
    return env;
}

struct ChildResult {
    int status = 0;
    bool hung = false;
    std::string stderr_text;
};

void limit_child(pid_t pid) {
    const rlimit cpu{kChildCpuSeconds, kChildCpuSeconds + 5};
    const rlimit file_size{kChildFileBytes, kChildFileBytes};
    prlimit(pid, RLIMIT_CPU, &cpu, nullptr);
    prlimit(pid, RLIMIT_FSIZE, &file_size, nullptr);
}

ChildResult run_cli(const std::vector<std::string>& args) {
    const Workspace& ws = workspace();
    std::vector<std::string> argv_text{cli_path()};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_text = child_environment(ws);
    std::vector<char*> envp;
    for (auto& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, ws.stderr_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    unlink(ws.coverage.c_str());
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        std::fprintf(stderr, "fuzz_hdf5: cannot run %s: %s\n", argv[0], std::strerror(spawned));
        std::abort();
    }
    limit_child(pid);

    ChildResult result;
    const auto deadline = std::chrono::steady_clock::now() + kChildWallLimit;
    while (waitpid(pid, &result.status, WNOHANG) == 0) {
        if (!result.hung && std::chrono::steady_clock::now() > deadline) {
            result.hung = true;
            kill(pid, SIGABRT);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    result.stderr_text = read_file(ws.stderr_path);
    return result;
}

void take_child_coverage() {
    const std::string counters = read_file(workspace().coverage);
    for (std::size_t i = 0; i < counters.size(); ++i) {
        auto& slot = g_child_counters[i % kChildCounters];
        slot = static_cast<std::uint8_t>(slot | static_cast<std::uint8_t>(counters[i]));
    }
}

[[noreturn]] void finding(const std::string& what, const ChildResult& child) {
    std::fprintf(stderr, "fuzz_hdf5: FINDING: %s\n--- the child's stderr:\n%s---\n", what.c_str(),
                 child.stderr_text.c_str());
    __builtin_trap();
}

std::size_t g_libhdf5_crashes = 0;
std::size_t g_libhdf5_leaks = 0;

void report_libhdf5_crash(const std::uint8_t* data, std::size_t size, const ChildResult& child,
                          const std::string& frame) {
    ++g_libhdf5_crashes;
    const Workspace& ws = workspace();
    char name[64];
    std::snprintf(name, sizeof name, "/crash-%016llx.h5",
                  static_cast<unsigned long long>(XXH3_64bits(data, size)));
    write_file(ws.reports + name, data, size);
    std::fprintf(stderr, "fuzz_hdf5: libhdf5 %s in %s (not counted; input kept as %s%s)\n",
                 child.hung ? "hang" : "crash", frame.c_str(), ws.reports.c_str(), name);
}

std::string describe_status(const ChildResult& child) {
    if (WIFEXITED(child.status)) return "exit " + std::to_string(WEXITSTATUS(child.status));
    if (WIFSIGNALED(child.status)) return "signal " + std::to_string(WTERMSIG(child.status));
    return "status " + std::to_string(child.status);
}

// Leaks are reported as the child exits, which it then does with its own status. libhdf5
// leaks on some of its error paths; those are counted, not kept.
void judge_leaks(const ChildResult& child, const char* command) {
    const auto at = child.stderr_text.find("ERROR: LeakSanitizer: detected memory leaks");
    if (at == std::string::npos) return;
    const gcfuzz::CrashOrigin origin = gcfuzz::crash_origin(child.stderr_text.substr(at));
    if (origin.in_libhdf5) {
        ++g_libhdf5_leaks;
        return;
    }
    finding(std::string(command) + " leaked memory; first frame: " + origin.frame, child);
}

// A run that did not end with a status gradcodec documents: libhdf5's, or a finding.
void judge_abnormal(const std::uint8_t* data, std::size_t size, const ChildResult& child,
                    const char* command) {
    const gcfuzz::CrashOrigin origin = gcfuzz::crash_origin(child.stderr_text);
    if (origin.in_libhdf5) return report_libhdf5_crash(data, size, child, origin.frame);
    finding(std::string(command) + " ended with " + describe_status(child) +
                (child.hung ? " (hung, stopped)" : "") + "; first frame: " + origin.frame,
            child);
}

bool documented_exit(const ChildResult& child) {
    if (child.hung || !WIFEXITED(child.status)) return false;
    const int code = WEXITSTATUS(child.status);
    return code == 0 || code == 2 || code == 3 || code == 4;
}

void clear_output_dir() {
    const Workspace& ws = workspace();
    for (const auto& name : entries(ws.output_dir)) unlink((ws.output_dir + "/" + name).c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    workspace();  // built before the handler below is registered, so destroyed after it runs
    std::atexit([] {
        const Workspace& ws = workspace();
        std::fprintf(stderr,
                     "fuzz_hdf5: %zu libhdf5 crash(es) or hang(s) reported, in %s; %zu runs "
                     "with a leak inside libhdf5\n",
                     g_libhdf5_crashes, ws.reports.c_str(), g_libhdf5_leaks);
        clear_output_dir();
        for (const auto& file : {ws.input, ws.stderr_path, ws.coverage}) unlink(file.c_str());
        for (const auto& dir : {ws.input_dir, ws.output_dir, ws.root}) rmdir(dir.c_str());
    });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const Workspace& ws = workspace();
    clear_output_dir();
    if (!write_file(ws.input, data, size)) {
        std::perror("fuzz_hdf5: cannot write the input");
        std::abort();
    }
    const std::uint64_t input_hash = XXH3_64bits(data, size);

    const ChildResult encode =
        run_cli({"encode", ws.input, "-o", ws.output, "-T", "1", "--max-tensor-bytes", "64M"});
    take_child_coverage();
    judge_leaks(encode, "encode");

    const std::string after = read_file(ws.input);
    if (XXH3_64bits(after.data(), after.size()) != input_hash)
        finding("encode changed its input file", encode);
    if (entries(ws.input_dir) != std::set<std::string>{"input.h5"})
        finding("encode left a file beside its input", encode);

    const std::set<std::string> left = entries(ws.output_dir);
    const bool ok = !encode.hung && WIFEXITED(encode.status) && WEXITSTATUS(encode.status) == 0;
    if (!ok && !left.empty())
        finding("encode failed (" + describe_status(encode) + ") and left " + *left.begin(),
                encode);
    if (!documented_exit(encode)) {
        judge_abnormal(data, size, encode, "encode");
        return 0;
    }
    if (WEXITSTATUS(encode.status) == 2) finding("encode of a file input exited 2 (usage)", encode);
    if (!ok) return 0;
    if (left != std::set<std::string>{"out.gcs"})
        finding("encode succeeded but its output folder holds more than OUTPUT", encode);

    const ChildResult decode =
        run_cli({"decode", ws.output, "-o", ws.decoded, "-T", "1", "--max-tensor-bytes", "64M"});
    judge_leaks(decode, "decode of what encode wrote");
    if (!documented_exit(decode)) {
        judge_abnormal(data, size, decode, "decode of what encode wrote");
    } else if (WEXITSTATUS(decode.status) != 0) {
        finding("decode refused what encode wrote (" + describe_status(decode) + ")", decode);
    }
    clear_output_dir();
    return 0;
}
