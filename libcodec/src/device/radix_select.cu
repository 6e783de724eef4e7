#include <cuda_runtime.h>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <algorithm>
#include <array>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <vector>

#include "cuda_check.hpp"
#include "radix_select.hpp"

namespace gradcodec::cuda {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kMaxDigitBins = 2048;
struct Digit {
    int shift;
    int width;
};
// Magnitude patterns have 31 significant bits.
constexpr std::array<Digit, 3> kDigits{{{20, 11}, {9, 11}, {0, 9}}};

__device__ __forceinline__ std::uint32_t key_of(const float* x, std::uint64_t i) {
    return __float_as_uint(x[i]) & 0x7fffffffu;
}

__device__ __forceinline__ std::uint32_t weight_of(const WeightRule& r, std::uint64_t g) {
    if (r.bins == 0) return 1;
    const std::uint64_t c = g / r.bins;
    const std::uint64_t k = g - c * r.bins;
    const std::uint64_t len = c < r.full ? r.chunk : r.tail;
    return k == 0 || (len % 2 == 0 && k == len / 2) ? 1u : 2u;
}

__global__ void digit_histogram(const float* x, std::uint64_t n, WeightRule rule,
                                std::uint32_t prefix_mask, std::uint32_t prefix, int shift,
                                std::uint32_t digit_mask, unsigned long long* hist) {
    __shared__ unsigned int local[kMaxDigitBins];
    for (unsigned i = threadIdx.x; i <= digit_mask; i += blockDim.x) local[i] = 0;
    __syncthreads();
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
         i += step) {
        const std::uint32_t key = key_of(x, i);
        if ((key & prefix_mask) != prefix) continue;
        atomicAdd(&local[(key >> shift) & digit_mask], weight_of(rule, i));
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i <= digit_mask; i += blockDim.x) {
        if (local[i] != 0) atomicAdd(&hist[i], static_cast<unsigned long long>(local[i]));
    }
}

struct TieWeight {
    const float* x;
    const std::uint64_t* ties;
    WeightRule rule;
    __device__ std::uint64_t operator()(std::uint64_t j) const { return weight_of(rule, ties[j]); }
};

struct IsTie {
    const float* x;
    std::uint32_t cut;
    __device__ bool operator()(std::uint64_t i) const { return key_of(x, i) == cut; }
};

struct IsKept {
    const float* x;
    std::uint32_t cut;
    std::uint64_t last_tie;  // ties with an index up to this one are kept
    __device__ bool operator()(std::uint64_t i) const {
        const std::uint32_t key = key_of(x, i);
        return key > cut || (key == cut && i <= last_tie);
    }
};

struct AtLeast {
    const float* x;
    std::uint32_t lowest;
    __device__ bool operator()(std::uint64_t i) const { return key_of(x, i) >= lowest; }
};

__global__ void flag_nonfinite(const float* x, std::uint64_t n, unsigned int* flag) {
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    bool bad = false;
    for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
         i += step) {
        bad |= (__float_as_uint(x[i]) & 0x7f800000u) == 0x7f800000u;
    }
    if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr(flag, 1u);
}

// The first j with inclusive[j] >= remaining: the last tie kept.
__global__ void find_reaching(const std::uint64_t* inclusive, std::uint64_t m,
                              std::uint64_t remaining, std::uint64_t* found) {
    const std::uint64_t j = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
    if (j >= m) return;
    if (inclusive[j] >= remaining && (j == 0 || inclusive[j - 1] < remaining)) *found = j;
}

__global__ void iota(std::uint64_t* out, std::uint64_t n) {
    const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = i;
}

unsigned grid_for(std::uint64_t n) {
    return static_cast<unsigned>(std::clamp<std::uint64_t>((n + kThreads - 1) / kThreads, 1, 4096));
}
unsigned cover(std::uint64_t n) {
    return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

// cub's two-call idiom: size the scratch, then run.
template <class Run>
void with_scratch(Run run, const char* what) {
    std::size_t bytes = 0;
    check(run(nullptr, bytes), what);
    DeviceArray<unsigned char> scratch(bytes);
    check(run(scratch.data(), bytes), what);
}

}  // namespace

std::uint64_t total_weight(const WeightRule& r, std::uint64_t n) {
    if (r.bins == 0) return n;
    std::uint64_t singles = r.full * (r.chunk % 2 == 0 ? 2 : 1);
    if (r.tail != 0) singles += r.tail % 2 == 0 ? 2 : 1;
    return 2 * n - singles;
}

std::uint64_t select_by_weight_on_device(const float* x, std::uint64_t n, const WeightRule& rule,
                                         std::uint64_t target, std::uint64_t* out,
                                         std::uint32_t* cut_bits) {
    if (target == 0 || n == 0) return 0;
    const std::uint64_t total = total_weight(rule, n);
    if (target >= total && cut_bits == nullptr) {
        iota<<<cover(n), kThreads>>>(out, n);
        check(cudaDeviceSynchronize(), "select all");
        return n;
    }
    // Taking the whole total keeps everything and finds the smallest pattern as the cut.
    target = std::min(target, total);
    // Narrow the cut pattern digit by digit; `remaining` is the weight still to take from
    // the elements matching the prefix found so far.
    DeviceArray<unsigned long long> hist(kMaxDigitBins);
    std::vector<unsigned long long> host(kMaxDigitBins);
    std::uint32_t prefix = 0, prefix_mask = 0;
    std::uint64_t remaining = target;
    for (const Digit d : kDigits) {
        const std::uint32_t digit_mask = (1u << d.width) - 1;
        check(cudaMemset(hist.data(), 0, sizeof(unsigned long long) * (digit_mask + 1)),
              "histogram reset");
        digit_histogram<<<grid_for(n), kThreads>>>(x, n, rule, prefix_mask, prefix, d.shift,
                                                   digit_mask, hist.data());
        check(cudaMemcpy(host.data(), hist.data(), sizeof(unsigned long long) * (digit_mask + 1),
                         cudaMemcpyDeviceToHost),
              "histogram copy");
        std::uint32_t digit = digit_mask;
        for (;; --digit) {
            if (host[digit] >= remaining) break;
            remaining -= host[digit];
            if (digit == 0) break;  // unreachable: the prefix's weight covers `remaining`
        }
        prefix |= digit << d.shift;
        prefix_mask |= digit_mask << d.shift;
    }

    // Ties (pattern == prefix) in index order; keep the shortest run reaching `remaining`.
    DeviceArray<std::uint64_t> ties(n);
    DeviceArray<std::uint64_t> tie_count(1);
    thrust::counting_iterator<std::uint64_t> indices(0);
    const auto count = static_cast<std::int64_t>(n);
    with_scratch(
        [&](void* s, std::size_t& b) {
            return cub::DeviceSelect::If(s, b, indices, ties.data(), tie_count.data(), count,
                                         IsTie{x, prefix});
        },
        "tie compaction");
    std::uint64_t m = 0;
    check(cudaMemcpy(&m, tie_count.data(), sizeof m, cudaMemcpyDeviceToHost), "tie count");
    std::uint64_t last_index = remaining - 1;  // unit weights: the remaining-th tie
    if (rule.bins != 0) {
        DeviceArray<std::uint64_t> inclusive(m);
        const auto weights = thrust::make_transform_iterator(
            thrust::counting_iterator<std::uint64_t>(0), TieWeight{x, ties.data(), rule});
        with_scratch(
            [&](void* s, std::size_t& b) {
                return cub::DeviceScan::InclusiveSum(s, b, weights, inclusive.data(),
                                                     static_cast<std::int64_t>(m));
            },
            "tie weights");
        find_reaching<<<cover(m), kThreads>>>(inclusive.data(), m, remaining, tie_count.data());
        check(cudaMemcpy(&last_index, tie_count.data(), sizeof last_index, cudaMemcpyDeviceToHost),
              "last tie");
    }
    std::uint64_t last_tie = 0;
    check(cudaMemcpy(&last_tie, ties.data() + last_index, sizeof last_tie, cudaMemcpyDeviceToHost),
          "last tie index");

    DeviceArray<std::uint64_t> kept(1);
    with_scratch(
        [&](void* s, std::size_t& b) {
            return cub::DeviceSelect::If(s, b, indices, out, kept.data(), count,
                                         IsKept{x, prefix, last_tie});
        },
        "kept compaction");
    std::uint64_t k = 0;
    check(cudaMemcpy(&k, kept.data(), sizeof k, cudaMemcpyDeviceToHost), "kept count");
    if (cut_bits != nullptr) *cut_bits = prefix;
    return k;
}

std::uint64_t select_at_least_on_device(const float* x, std::uint64_t n, std::uint32_t lowest,
                                        std::uint64_t* out) {
    if (n == 0) return 0;
    DeviceArray<std::uint64_t> kept(1);
    thrust::counting_iterator<std::uint64_t> indices(0);
    with_scratch(
        [&](void* s, std::size_t& b) {
            return cub::DeviceSelect::If(s, b, indices, out, kept.data(),
                                         static_cast<std::int64_t>(n), AtLeast{x, lowest});
        },
        "threshold compaction");
    std::uint64_t k = 0;
    check(cudaMemcpy(&k, kept.data(), sizeof k, cudaMemcpyDeviceToHost), "kept count");
    return k;
}

bool any_nonfinite_on_device(const float* x, std::uint64_t n) {
    if (n == 0) return false;
    DeviceArray<unsigned int> flag(1);
    check(cudaMemset(flag.data(), 0, sizeof(unsigned int)), "flag reset");
    flag_nonfinite<<<grid_for(n), kThreads>>>(x, n, flag.data());
    unsigned int host = 0;
    check(cudaMemcpy(&host, flag.data(), sizeof host, cudaMemcpyDeviceToHost), "flag copy");
    return host != 0;
}

}  // namespace gradcodec::cuda
