#pragma once
// An uninitialised array on FFTW's SIMD alignment, so chunks can run through the cached plans
// without staging copies, and large spectra are not zero-filled before being overwritten. Its
// memory comes from the thread's scratch cache (common/scratch.hpp), so a repeated transform
// of the same size allocates nothing.
#include <cstddef>
#include <new>
#include <span>

#include "common/huge_pages.hpp"
#include "common/scratch.hpp"

namespace gradcodec {

template <class T>
class AlignedArray {
  public:
    explicit AlignedArray(std::size_t size)
        : data_(static_cast<T*>(scratch_allocate(sizeof(T) * (size == 0 ? 1 : size)))),
          size_(size) {
        static_assert(alignof(T) <= kScratchAlignment);
        advise_huge_pages(data_, sizeof(T) * size);
    }
    ~AlignedArray() { scratch_deallocate(data_); }
    AlignedArray(const AlignedArray&) = delete;
    AlignedArray& operator=(const AlignedArray&) = delete;

    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return size_; }
    T& operator[](std::size_t i) { return data_[i]; }
    const T& operator[](std::size_t i) const { return data_[i]; }
    std::span<T> span() { return {data_, size_}; }
    std::span<const T> span() const { return {data_, size_}; }

  private:
    T* data_;
    std::size_t size_;
};

}  // namespace gradcodec
