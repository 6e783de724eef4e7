#pragma once
// The CPU features the hand-vectorised paths are chosen by at run time, read once per process.
// GRADCODEC_X86_DISPATCH is defined where those paths are compiled at all: x86-64 with a
// compiler that builds AVX code per function (target attributes) behind such a check.
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define GRADCODEC_X86_DISPATCH 1
#endif

namespace gradcodec {

#if defined(GRADCODEC_X86_DISPATCH)
struct CpuFeatures {
    bool avx2 = false;
    bool f16c = false;         // with AVX2: the f16 conversions use both
    bool avx512 = false;       // AVX-512 F, BW and VL, which every AVX-512 path may use
    bool avx512_bf16 = false;  // with the three above
};

inline CpuFeatures detect_cpu_features() {
    __builtin_cpu_init();
    CpuFeatures f;
    f.avx2 = __builtin_cpu_supports("avx2") != 0;
    // F16C from CPUID leaf 1 (ECX bit 29): clang's __builtin_cpu_supports has no "f16c".
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    f.f16c = f.avx2 && __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
    f.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl");
    f.avx512_bf16 = f.avx512 && __builtin_cpu_supports("avx512bf16");
    return f;
}

inline const CpuFeatures& cpu_features() {
    static const CpuFeatures features = detect_cpu_features();
    return features;
}

inline bool cpu_has_avx2() {
    return cpu_features().avx2;
}
inline bool cpu_has_avx512() {
    return cpu_features().avx512;
}
#endif

}  // namespace gradcodec
