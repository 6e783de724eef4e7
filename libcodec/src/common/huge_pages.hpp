#pragma once
// Large buffers on 2 MiB pages where the kernel allows it (Linux transparent huge pages in
// "madvise" mode): a fresh 100 MB buffer then costs 50 page faults instead of 25,000, which
// on virtual machines is most of the system time of a whole encode. Advice only: no effect
// elsewhere, and the bytes are the same.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gradcodec {

// Advises the whole 2 MiB pages inside [p, p + bytes), before they are first touched.
void advise_huge_pages(const void* p, std::size_t bytes);

// Resizes a byte vector that is about to be filled, its new pages advised first.
inline void resize_for_fill(std::vector<std::uint8_t>& v, std::size_t size) {
    if (size > v.capacity()) {
        v.reserve(size);
        advise_huge_pages(v.data() + v.size(), size - v.size());
    }
    v.resize(size);
}

}  // namespace gradcodec
