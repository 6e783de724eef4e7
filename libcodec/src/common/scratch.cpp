#include "common/scratch.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace gradcodec {
namespace {

// Each block starts with a header holding its usable size; the caller's bytes follow it, on a
// cache line (which is also the alignment FFTW's SIMD code wants).
constexpr std::size_t kBlockAlignment = kScratchAlignment;

struct alignas(kBlockAlignment) BlockHeader {
    std::size_t capacity;
};

// A cached block is poisoned under AddressSanitizer, so a use after free of a scratch buffer
// is still reported although its memory was not given back to the heap.
void mark_cached(BlockHeader* block) {
#if defined(__SANITIZE_ADDRESS__)
    ASAN_POISON_MEMORY_REGION(block + 1, block->capacity);
#else
    (void)block;
#endif
}

void mark_lent(BlockHeader* block) {
#if defined(__SANITIZE_ADDRESS__)
    ASAN_UNPOISON_MEMORY_REGION(block + 1, block->capacity);
#else
    (void)block;
#endif
}

BlockHeader* header_of(void* p) {
    return static_cast<BlockHeader*>(p) - 1;
}

// Blocks freed on this thread, up to twice the most scratch memory the thread has had in use
// at once: enough to serve a repeat of its largest call, while a run of growing tensors
// cannot make it collect every size it passed through.
class ThreadCache {
  public:
    ThreadCache() = default;
    ThreadCache(const ThreadCache&) = delete;
    ThreadCache& operator=(const ThreadCache&) = delete;
    ~ThreadCache() { release(); }

    // The smallest cached block holding `bytes`, removed from the cache; nullptr if none.
    BlockHeader* take(std::size_t bytes) {
        std::size_t best = count_;
        for (std::size_t i = 0; i < count_; ++i) {
            const std::size_t c = blocks_[i]->capacity;
            if (c >= bytes && (best == count_ || c < blocks_[best]->capacity)) best = i;
        }
        if (best == count_) return nullptr;
        BlockHeader* block = blocks_[best];
        remove(best);
        mark_lent(block);
        return block;
    }

    void lent(const BlockHeader* block) {
        in_use_ += block->capacity;
        if (in_use_ > peak_in_use_) peak_in_use_ = in_use_;
    }

    void put(BlockHeader* block) noexcept {
        // A block another thread lent may be returned here: its bytes were never counted.
        in_use_ -= std::min(in_use_, block->capacity);
        const std::size_t limit = 2 * peak_in_use_;
        while (count_ > 0 && (count_ == blocks_.size() || cached_ + block->capacity > limit)) {
            if (blocks_[smallest()]->capacity > block->capacity) break;
            free_at(smallest());
        }
        if (count_ == blocks_.size() || cached_ + block->capacity > limit) {
            ::operator delete (block, std::align_val_t{kBlockAlignment});
            return;
        }
        mark_cached(block);
        blocks_[count_++] = block;
        cached_ += block->capacity;
    }

    void release() noexcept {
        while (count_ > 0) free_at(count_ - 1);
    }

  private:
    std::size_t smallest() const {
        std::size_t s = 0;
        for (std::size_t i = 1; i < count_; ++i)
            if (blocks_[i]->capacity < blocks_[s]->capacity) s = i;
        return s;
    }
    void remove(std::size_t i) noexcept {
        cached_ -= blocks_[i]->capacity;
        blocks_[i] = blocks_[--count_];
    }
    void free_at(std::size_t i) noexcept {
        BlockHeader* block = blocks_[i];
        remove(i);
        mark_lent(block);
        ::operator delete (block, std::align_val_t{kBlockAlignment});
    }

    std::array<BlockHeader*, kScratchCacheBlocks> blocks_{};
    std::size_t count_ = 0;
    std::size_t cached_ = 0;       // bytes in cached blocks
    std::size_t in_use_ = 0;       // bytes in blocks lent out and not yet returned
    std::size_t peak_in_use_ = 0;  // the most in_use_ has been
};

// Set once the thread's cache is destroyed (thread exit), so that buffers freed later, by other
// thread-local objects' destructors, go straight back to the heap. A plain bool needs no
// destructor, so it outlives the cache.
thread_local bool cache_gone = false;

struct CacheOwner {
    ThreadCache cache;
    ~CacheOwner() { cache_gone = true; }
};

ThreadCache* thread_cache() {
    if (cache_gone) return nullptr;
    thread_local CacheOwner owner;
    return &owner.cache;
}

}  // namespace

void* scratch_allocate(std::size_t bytes) {
    ThreadCache* cache = thread_cache();
    BlockHeader* block = cache != nullptr ? cache->take(bytes) : nullptr;
    if (block == nullptr) {
        block = static_cast<BlockHeader*>(
            ::operator new (sizeof(BlockHeader) + bytes, std::align_val_t{kBlockAlignment}));
        block->capacity = bytes;
    }
    if (cache != nullptr) cache->lent(block);
    return block + 1;
}

void scratch_deallocate(void* p) noexcept {
    if (p == nullptr) return;
    BlockHeader* block = header_of(p);
    if (ThreadCache* cache = thread_cache()) {
        cache->put(block);
    } else {
        ::operator delete (block, std::align_val_t{kBlockAlignment});
    }
}

void release_thread_scratch() noexcept {
    if (ThreadCache* cache = thread_cache()) cache->release();
}

}  // namespace gradcodec
