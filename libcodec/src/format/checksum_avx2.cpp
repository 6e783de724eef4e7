// XXH3-64 with AVX2. libcodec/CMakeLists.txt compiles this file with -mavx2, and Checksum
// calls it only on a CPU that has AVX2 (format/checksum.cpp).
#include "format/checksum_impl.hpp"

#if defined(GRADCODEC_CHECKSUM_AVX2)
#if !defined(__AVX2__)
#error "checksum_avx2.cpp must be compiled with -mavx2"
#endif
#define XXH_VECTOR XXH_AVX2
#define GRADCODEC_CHECKSUM_IMPL kChecksumAvx2
#define GRADCODEC_CHECKSUM_NAME "avx2"
#include "format/checksum_xxh3.inc"
#endif
