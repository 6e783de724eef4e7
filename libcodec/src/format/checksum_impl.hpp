#pragma once
// One build of xxHash's XXH3-64 (format/checksum_xxh3.inc) for one instruction set. The files
// that include this one are compiled with vector flags of their own, so it declares only
// plain data: no inline function a flag could change for the rest of the library.
#include <cstddef>
#include <cstdint>

namespace gradcodec {

struct ChecksumImpl {
    const char* name;
    void* (*create)();  // a state ready for update; nullptr when out of memory
    void (*destroy)(void* state);
    void (*update)(void* state, const void* bytes, std::size_t size);
    std::uint64_t (*digest)(const void* state);
    std::uint64_t (*hash)(const void* bytes, std::size_t size);
};

extern const ChecksumImpl kChecksumBaseline;  // SSE2 on x86-64, NEON on ARM, else scalar
#if defined(__x86_64__) && defined(__GNUC__)
#define GRADCODEC_CHECKSUM_AVX2 1
extern const ChecksumImpl kChecksumAvx2;
#endif

}  // namespace gradcodec
