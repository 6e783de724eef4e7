#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <limits>

#include "codec/float_codec.hpp"
#include "codec/sparse_payload.hpp"
#include "cuda_check.hpp"
#include "index/position_coder.hpp"
#include "quant/value_coder.hpp"
#include "radix_select.hpp"
#include "select/selection.hpp"
#include "select/topk.hpp"
#include "sparse_device_codec.hpp"

namespace gradcodec::cuda {
namespace {

__global__ void gather(const float* x, const std::uint64_t* idx, std::uint64_t k, float* out) {
    const std::uint64_t j = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
    if (j < k) out[j] = x[idx[j]];
}

template <class T>
std::vector<T> to_host(const T* device, std::uint64_t count, const char* what) {
    std::vector<T> out(count);
    if (count != 0) {
        check(cudaMemcpy(out.data(), device, sizeof(T) * count, cudaMemcpyDeviceToHost), what);
    }
    return out;
}

}  // namespace

void encode_sparse_on_device(const SparseParams& p, const TensorMeta& meta, const float* x,
                             const EncodeOptions& options, ByteOutput& out) {
    const std::uint64_t n = meta.element_count();
    if (!options.allow_nonfinite && any_nonfinite_on_device(x, n)) {
        require_finite(meta, to_host(x, n, "input copy"));
    }
    DeviceArray<std::uint64_t> idx(n);
    std::uint64_t k = 0;
    double target = p.density;
    float threshold = p.threshold;
    if (p.selector == Selector::topk) {
        const std::uint64_t want =
            p.count ? std::min<std::uint64_t>(*p.count, n) : topk_count(n, p.density);
        if (p.count) target = n == 0 ? 1.0 : static_cast<double>(want) / static_cast<double>(n);
        std::uint32_t cut = 0;
        k = select_by_weight_on_device(x, n, {}, want, idx.data(), &cut);
        threshold = k == 0 ? std::numeric_limits<float>::infinity() : std::bit_cast<float>(cut);
    } else {
        k = select_at_least_on_device(x, n, bits_above(p.threshold), idx.data());
    }
    DeviceArray<float> values(k);
    if (k != 0) {
        gather<<<static_cast<unsigned>((k + 255) / 256), 256>>>(x, idx.data(), k, values.data());
        check(cudaDeviceSynchronize(), "gather kernel");
    }
    const std::vector<std::uint64_t> host_idx = to_host(idx.data(), k, "index copy");
    const std::vector<float> host_values = to_host(values.data(), k, "value copy");

    // dist and stages are SIDCo's, which stays on the CPU.
    write_sparse_payload(p, meta, {0, 0, target, threshold}, host_idx, host_values, n, options,
                         out);
}

}  // namespace gradcodec::cuda
