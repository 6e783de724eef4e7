#pragma once
// Splitting one tensor's work across threads. The caller's thread count (EncodeOptions,
// DecodeOptions) is set for the call in progress by a ThreadScope at the API entry points and
// read here, so helpers deep in a codec need no extra parameter. Work is cut into pieces whose
// bounds do not depend on the thread count, and results are merged in piece order: a codec
// writes the same bytes whatever the thread count. Threads start only inside parallel_for and
// are all joined before it returns.
#include <algorithm>
#include <cstddef>
#include <functional>

namespace gradcodec {

// The threads the call in progress may use: 1 unless a ThreadScope on this thread says more.
unsigned codec_threads();

class ThreadScope {
  public:
    explicit ThreadScope(unsigned threads);
    ~ThreadScope();
    ThreadScope(const ThreadScope&) = delete;
    ThreadScope& operator=(const ThreadScope&) = delete;

  private:
    unsigned saved_;
};

// The threaded part of parallel_for: `threads` >= 2 threads take indices from one counter.
void run_on_threads(std::size_t count, unsigned threads,
                    const std::function<void(std::size_t)>& body);

// Runs body(i) for every i in [0, count) on up to codec_threads() threads; bodies run with a
// thread count of 1, so nothing nests. When bodies throw, every body still finishes and the
// exception of the lowest i is rethrown: errors do not depend on the thread count either.
// A template, so that the single-threaded call allocates nothing and calls `body` directly.
template <class Body>
void parallel_for(std::size_t count, Body&& body) {
    const std::size_t threads = std::min<std::size_t>(codec_threads(), count);
    if (threads <= 1) {
        const ThreadScope serial(1);
        for (std::size_t i = 0; i < count; ++i) body(i);
        return;
    }
    run_on_threads(count, static_cast<unsigned>(threads),
                   std::function<void(std::size_t)>(std::ref(body)));
}

inline std::size_t piece_count(std::size_t n, std::size_t grain) {
    return (n + grain - 1) / grain;
}

// [0, n) in pieces of `grain` (the last may be shorter): body(first, size) per piece.
template <class Body>
void parallel_pieces(std::size_t n, std::size_t grain, Body&& body) {
    parallel_for(piece_count(n, grain), [&](std::size_t p) {
        const std::size_t first = p * grain;
        body(first, std::min(grain, n - first));
    });
}

}  // namespace gradcodec
