#pragma once
// Working buffers that keep their memory across calls, so that a compiled codec encoding or
// decoding into a caller's buffer allocates nothing once warm. A ScratchVector is a std::vector
// whose blocks come from a cache kept per thread: a freed block stays in the freeing thread's
// cache and serves the next request it is large enough for. A call that repeats the requests
// of an earlier call on the same thread is served from the cache alone.
//
// The cache holds at most kScratchCacheBlocks blocks and only what callers freed: its memory
// is about the peak working memory of the largest call the thread has made. It is freed when
// the thread ends, or at once by release_thread_scratch().
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace gradcodec {

inline constexpr std::size_t kScratchCacheBlocks = 64;
inline constexpr std::size_t kScratchAlignment = 64;

// At least `bytes` bytes on a kScratchAlignment boundary, from this thread's cache when a
// cached block is large enough (the smallest such), else from operator new.
void* scratch_allocate(std::size_t bytes);
void scratch_deallocate(void* p) noexcept;

// Frees this thread's cached blocks (blocks in use are not affected).
void release_thread_scratch() noexcept;

template <class T>
struct ScratchAllocator {
    static_assert(alignof(T) <= kScratchAlignment);
    using value_type = T;
    ScratchAllocator() = default;
    template <class U>
    explicit ScratchAllocator(const ScratchAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        if (n > static_cast<std::size_t>(-1) / 2 / sizeof(T)) throw std::bad_array_new_length();
        return static_cast<T*>(scratch_allocate(n * sizeof(T)));
    }
    void deallocate(T* p, std::size_t) noexcept { scratch_deallocate(p); }
    template <class U>
    bool operator==(const ScratchAllocator<U>&) const noexcept {
        return true;
    }
};

template <class T>
using ScratchVector = std::vector<T, ScratchAllocator<T>>;

// An uninitialised array from the scratch cache, for buffers filled before they are read
// (only the pages written are touched).
struct ScratchFree {
    void operator()(void* p) const noexcept { scratch_deallocate(p); }
};
template <class T>
using ScratchArray = std::unique_ptr<T[], ScratchFree>;

template <class T>
ScratchArray<T> scratch_array_for_overwrite(std::size_t n) {
    static_assert(std::is_trivially_default_constructible_v<T> && alignof(T) <= kScratchAlignment);
    return ScratchArray<T>(static_cast<T*>(scratch_allocate(n * sizeof(T))));
}

}  // namespace gradcodec
