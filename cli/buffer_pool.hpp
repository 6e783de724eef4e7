#pragma once
// Input buffers reused across tensors. A dump holds many tensors of a few sizes; reading each
// into fresh memory costs a zero-fill and a page fault per 4 KiB, often more than the codec's
// own work. Buffers come back to a free list by size class (the next power of two) and are
// handed out again uninitialised, the most recently returned first (still in cache); large ones
// are advised onto 2 MiB pages. Any thread may take and give back.
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace gradcodec::cli {

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

    static constexpr std::size_t kKeepBytes = std::size_t{64} << 20;
    static constexpr std::size_t kLargeBytes = std::size_t{8} << 20;

  private:
    std::mutex mutex_;
    std::vector<PooledBuffer> free_;
    std::size_t kept_ = 0;
};

}  // namespace gradcodec::cli
