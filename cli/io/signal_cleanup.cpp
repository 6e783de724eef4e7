#include "io/signal_cleanup.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <initializer_list>
#include <utility>

#include "gradcodec_hdf5/libhdf5_reading.hpp"
#include "support/cli_support.hpp"
#include "support/exit_codes.hpp"

namespace gradcodec::cli {

using namespace gradcodec::hdf5;  // HDF5 dumps: gradcodec_hdf5_io (hdf5/)
namespace {

// A handler may only touch async-signal-safe state: one fixed buffer, written before the file
// exists and cleared after it is gone, so no signal can see a name half written.
char g_pending_temp[4096];
volatile sig_atomic_t g_has_pending = 0;
char g_mapped_input[4096];
volatile sig_atomic_t g_has_mapped = 0;
void cleanup_and_die(int sig) {
    if (g_has_pending) unlink(g_pending_temp);
    // SA_RESETHAND restored the default action: re-raising ends the process with this
    // signal's status (a crash returns to the faulting instruction and faults again).
    raise(sig);
}

void write_text(const char* text) {
    for (std::size_t left = std::strlen(text); left > 0;) {
        const ssize_t n = write(STDERR_FILENO, text, left);
        if (n <= 0) return;
        text += n;
        left -= static_cast<std::size_t>(n);
    }
}

// write() and _exit() only: the heap and stdio may be what libhdf5 broke.
void libhdf5_crashed(const char* file) {
    if (g_has_pending) unlink(g_pending_temp);
    write_text("gradcodec: libhdf5 crashed reading ");
    write_text(file);
    write_text(": the file is damaged\n");
    _exit(kExitBadInput);
}

void crashed(int sig) {
    if (const char* file = hdf5::libhdf5_input()) libhdf5_crashed(file);
    cleanup_and_die(sig);
}

// Inside libhdf5 a SIGBUS is its crash (it reads files with read(), never through our
// mapping); any other SIGBUS is a crash, handled as one.
void mapped_input_shrank(int sig) {
    if (const char* file = hdf5::libhdf5_input()) libhdf5_crashed(file);
    if (!g_has_mapped) {
        cleanup_and_die(sig);  // the signal is delivered again once this handler returns
        return;
    }
    if (g_has_pending) unlink(g_pending_temp);
    write_text("gradcodec: ");
    write_text(g_mapped_input);
    write_text(": the file shrank while it was being read\n");
    _exit(kExitIo);
}

bool remember(const char* text, char (&buffer)[4096], volatile sig_atomic_t& has) {
    const std::size_t n = std::strlen(text);
    has = 0;
    if (n >= sizeof buffer) return false;
    std::memcpy(buffer, text, n + 1);
    has = 1;
    return true;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(undefined_behavior_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

void handle(int sig, void (*handler)(int) = cleanup_and_die) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) return;
    struct sigaction action {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_ONSTACK;
    sigaction(sig, &action, nullptr);
}

// A stack overflow raises SIGSEGV with no stack left to run the handler on.
void install_alternate_stack() {
    static char stack[1 << 16];
    stack_t alt{};
    alt.ss_sp = stack;
    alt.ss_size = sizeof stack;
    sigaltstack(&alt, nullptr);
}

}  // namespace

void install_signal_cleanup() {
    for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGXCPU,
                    SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS, SIGSTKFLT, SIGTRAP}) {
        handle(sig);
    }
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) handle(sig);
    // Sanitizers report crashes from their own handlers; ours would hide their report.
    if (!kSanitized) {
        install_alternate_stack();
        for (int sig : {SIGSEGV, SIGABRT, SIGILL, SIGFPE}) handle(sig, crashed);
        handle(SIGBUS, mapped_input_shrank);
    }
    signal(SIGXFSZ, SIG_IGN);
}

bool set_pending_temp(const char* path) {
    return remember(path, g_pending_temp, g_has_pending);
}

void clear_pending_temp() {
    g_has_pending = 0;
}

MappedInputName::MappedInputName(const std::string& path)
    : named_(remember(printable(path).c_str(), g_mapped_input, g_has_mapped)) {}

MappedInputName::~MappedInputName() {
    if (named_) g_has_mapped = 0;
}

MappedInputName::MappedInputName(MappedInputName&& other) noexcept
    : named_(std::exchange(other.named_, false)) {}

}  // namespace gradcodec::cli
