#include "common/vector_path.hpp"

#include <initializer_list>

#include "common/cpu_features.hpp"

namespace gradcodec {

bool cpu_supports(VectorPath path) {
#if defined(GRADCODEC_X86_DISPATCH)
    if (path == VectorPath::avx512) return cpu_has_avx512();
    if (path == VectorPath::avx2) return cpu_has_avx2();
#endif
    return path == VectorPath::portable;
}

VectorPath widest_vector_path() {
    for (const VectorPath path : {VectorPath::avx512, VectorPath::avx2})
        if (cpu_supports(path)) return path;
    return VectorPath::portable;
}

}  // namespace gradcodec
