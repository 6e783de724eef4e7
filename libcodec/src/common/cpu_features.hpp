#pragma once
// The CPU features the hand-vectorised paths are chosen by at run time, each asked once per
// process. GRADCODEC_X86_DISPATCH is defined where those paths are compiled at all: x86-64 with
// a compiler that builds AVX code per function (target attributes) behind such a check.
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GRADCODEC_X86_DISPATCH 1
#endif

namespace gradcodec {

#if defined(GRADCODEC_X86_DISPATCH)
inline bool cpu_has_avx2() {
    static const bool yes = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") != 0;
    }();
    return yes;
}

inline bool cpu_has_avx512f() {
    static const bool yes = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") != 0;
    }();
    return yes;
}
#endif

}  // namespace gradcodec
