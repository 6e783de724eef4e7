#include "io/buffer_pool.hpp"

#include <sys/mman.h>

#include <bit>
#include <cstdlib>
#include <iterator>
#include <new>

namespace gradcodec::cli {
namespace {

std::byte* allocate(std::size_t capacity) {
    // Whole 2 MiB pages for large buffers, so that the advice covers all of them.
    const bool huge = capacity >= kHugePageBytes;
    void* p = huge ? std::aligned_alloc(kHugePageBytes, capacity)
                   : std::malloc(capacity == 0 ? 1 : capacity);
    if (p == nullptr) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
    if (huge) madvise(p, capacity, MADV_HUGEPAGE);
#endif
    return static_cast<std::byte*>(p);
}

}  // namespace

void PooledBuffer::Free::operator()(std::byte* p) const {
    std::free(p);
}

PooledBuffer BufferPool::take(std::size_t size) {
    const std::size_t capacity = std::bit_ceil(size < 64 ? std::size_t{64} : size);
    {
        const std::lock_guard lock(mutex_);
        // A large tensor is processed alone: buffers kept for smaller ones would only add to
        // the peak while it is.
        if (size >= kLargeBytes) {
            free_.clear();
            kept_ = 0;
        }
        // The smallest kept buffer that fits, the most recently returned of its size first.
        auto best = free_.rend();
        for (auto it = free_.rbegin(); it != free_.rend(); ++it) {
            const bool fits = it->capacity_ >= capacity && it->capacity_ <= kMaxOversize * capacity;
            if (fits && (best == free_.rend() || it->capacity_ < best->capacity_)) best = it;
        }
        if (best != free_.rend()) {
            PooledBuffer b = std::move(*best);
            free_.erase(std::next(best).base());
            kept_ -= b.capacity_;
            b.size_ = size;
            return b;
        }
    }
    PooledBuffer b;
    b.data_.reset(allocate(capacity));
    b.capacity_ = capacity;
    b.size_ = size;
    return b;
}

void BufferPool::give_back(PooledBuffer buffer) {
    {  // a buffer not kept is freed when `buffer` goes, outside the lock
        const std::lock_guard lock(mutex_);
        if (keeping_ && buffer.data_ && kept_ + buffer.capacity_ <= kKeepBytes) {
            kept_ += buffer.capacity_;
            free_.push_back(std::move(buffer));
            return;
        }
    }
}

void BufferPool::stop_keeping() {
    const std::lock_guard lock(mutex_);
    keeping_ = false;
}

}  // namespace gradcodec::cli
