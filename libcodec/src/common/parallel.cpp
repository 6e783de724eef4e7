#include "common/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gradcodec {
namespace {

thread_local unsigned scope_threads = 1;

}  // namespace

unsigned codec_threads() {
    return scope_threads;
}

ThreadScope::ThreadScope(unsigned threads) : saved_(scope_threads) {
    scope_threads = std::max(1u, threads);
}

ThreadScope::~ThreadScope() {
    scope_threads = saved_;
}

// Fork and join per call: the caller and threads - 1 std::jthreads take indices from one
// counter, and all are joined before returning. Nothing waits idle between calls, which on a
// busy machine matters more than the microseconds a thread takes to start.
void run_on_threads(std::size_t count, unsigned threads,
                    const std::function<void(std::size_t)>& body) {
    std::atomic<std::size_t> next{0};
    std::mutex failure_lock;
    std::exception_ptr failure;
    std::size_t failed_at = count;
    const auto work = [&] {
        const ThreadScope serial(1);
        for (std::size_t i = next++; i < count; i = next++) {
            try {
                body(i);
            } catch (...) {
                const std::lock_guard lock(failure_lock);
                if (i < failed_at) {
                    failed_at = i;
                    failure = std::current_exception();
                }
            }
        }
    };
    {
        std::vector<std::jthread> helpers;
        helpers.reserve(threads - 1);
        for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(work);
        work();
    }
    if (failure) std::rethrow_exception(failure);
}

}  // namespace gradcodec
