#pragma once
// Input buffers reused across tensors. A dump holds many tensors of a few sizes; reading each
// into fresh memory costs a zero-fill and a page fault per 4 KiB, often more than the codec's
// own work. Buffers come back to a free list by size class (the next power of two) and are
// handed out again uninitialised, the smallest that fits first (up to kMaxOversize times the
// size class), the most recently returned among equals (still in cache); large ones are
// advised onto 2 MiB pages. Any thread may take and give back.
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace gradcodec::cli {

// Buffers of at least this size are allocated in whole 2 MiB pages and advised onto them.
constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

class PooledBuffer {
  public:
    PooledBuffer() = default;
    std::span<std::byte> bytes() { return {data_.get(), size_}; }
    std::span<const std::byte> bytes() const { return {data_.get(), size_}; }

  private:
    friend class BufferPool;
    struct Free {
        void operator()(std::byte* p) const;
    };
    std::unique_ptr<std::byte[], Free> data_;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

class BufferPool {
  public:
    // A buffer of `size` bytes whose contents are unspecified.
    PooledBuffer take(std::size_t size);
    // Keeps the buffer for a later take() while the pool holds less than kKeepBytes. Taking
    // kLargeBytes or more first frees every kept buffer.
    void give_back(PooledBuffer buffer);
    // Every buffer given back from now on is freed, not kept (kept ones are still handed out):
    // once the last tensor has been queued, the threads still working free the buffers as
    // they finish with them (the kernel's work for 64 MiB of pages takes milliseconds here)
    // instead of the one thread left when the pool is destroyed.
    void stop_keeping();

    static constexpr std::size_t kKeepBytes = std::size_t{64} << 20;
    // A kept buffer serves a smaller tensor, up to this many times its size class: its pages
    // are already mapped, and a fresh buffer's first touch costs the kernel a zero-fill (on a
    // VM, often a slow one). A bound, so that small tensors do not hold every large buffer.
    static constexpr std::size_t kMaxOversize = 4;
    // OrderedJobs::kAloneBytes: from this size on a tensor is processed alone, so buffers kept
    // for smaller ones would only add to its peak. Below it (a ResNet-50's 9.4 MB convolutions)
    // buffers are reused: a fresh one costs page faults, and freeing it an munmap whose TLB
    // shootdown interrupts the other threads.
    static constexpr std::size_t kLargeBytes = std::size_t{16} << 20;

  private:
    std::mutex mutex_;
    std::vector<PooledBuffer> free_;
    std::size_t kept_ = 0;
    bool keeping_ = true;
};

}  // namespace gradcodec::cli
