#include "common/parallel.hpp"

#include <algorithm>
#include <exception>
#include <mutex>

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

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& body) {
    const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(codec_threads(), count));
    if (threads <= 1) {
        const ThreadScope serial(1);
        for (std::size_t i = 0; i < count; ++i) body(i);
        return;
    }
    std::mutex failure_lock;
    std::exception_ptr failure;
    std::size_t failed_at = count;
    const auto signed_count = static_cast<long long>(count);
#if defined(_OPENMP)
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
#endif
    for (long long i = 0; i < signed_count; ++i) {
        const ThreadScope serial(1);
        try {
            body(static_cast<std::size_t>(i));
        } catch (...) {
            const std::lock_guard lock(failure_lock);
            if (static_cast<std::size_t>(i) < failed_at) {
                failed_at = static_cast<std::size_t>(i);
                failure = std::current_exception();
            }
        }
    }
    if (failure) std::rethrow_exception(failure);
}

void parallel_pieces(std::size_t n, std::size_t grain,
                     const std::function<void(std::size_t first, std::size_t size)>& body) {
    parallel_for(piece_count(n, grain), [&](std::size_t p) {
        const std::size_t first = p * grain;
        body(first, std::min(grain, n - first));
    });
}

}  // namespace gradcodec
