// cuFFT backend: batched R2C/C2R plans cached per layout; the orthonormal DCT-II/III by
// Makhoul's reordering around one real FFT of the same length (no cuFFT DCT exists). cuFFT
// itself is reached through cufft_library.hpp, loaded on the first plan.
#include <cuda_runtime.h>
#include <cufft.h>

#include <complex>
#include <map>
#include <mutex>
#include <tuple>

#include "cuda_check.hpp"
#include "cufft_backend.hpp"
#include "cufft_library.hpp"

namespace gradcodec::cuda {
namespace {

constexpr double kPi = 3.14159265358979323846;

using PlanKey = std::tuple<int, std::size_t, std::size_t, std::size_t, std::size_t>;

// cuFFT plans are costly to make (device allocations, kernel choice), so one per layout is
// kept. The lock also covers execution: a plan must not be destroyed while it runs.
struct PlanCache {
    std::mutex lock;
    std::map<PlanKey, cufftHandle> plans;
    ~PlanCache() {
        for (auto& [key, plan] : plans) cufft().destroy(plan);
    }
};

PlanCache& cache() {
    static PlanCache c;
    return c;
}

constexpr std::size_t kMaxPlans = 32;

// Requires the cache lock.
cufftHandle plan_for(cufftType type, const TransformBatch& b) {
    const CufftApi& api = cufft();
    PlanCache& c = cache();
    const PlanKey key{static_cast<int>(type), b.size, b.count, b.in_stride, b.out_stride};
    if (auto it = c.plans.find(key); it != c.plans.end()) return it->second;
    if (c.plans.size() >= kMaxPlans) {
        for (auto& [k, p] : c.plans) api.destroy(p);
        c.plans.clear();
    }
    cufftHandle plan = 0;
    check(api.create(&plan), "cufftCreate");
    long long n = static_cast<long long>(b.size);
    long long bins = static_cast<long long>(r2c_bins(b.size));
    long long in_embed = type == CUFFT_R2C ? n : bins;
    long long out_embed = type == CUFFT_R2C ? bins : n;
    std::size_t work = 0;
    const cufftResult made = api.make_plan_many64(
        plan, 1, &n, &in_embed, 1, static_cast<long long>(b.in_stride), &out_embed, 1,
        static_cast<long long>(b.out_stride), type, static_cast<long long>(b.count), &work);
    if (made != CUFFT_SUCCESS) {
        api.destroy(plan);
        check(made, "cufftMakePlanMany64");
    }
    c.plans.emplace(key, plan);
    return plan;
}

// cuFFT wants length >= 2 for real transforms; a length-1 DFT is the identity.
__global__ void copy_strided_real_to_complex(const float* in, cufftComplex* out, std::size_t count,
                                             std::size_t in_stride, std::size_t out_stride) {
    const std::size_t b = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (b < count) out[b * out_stride] = make_cuFloatComplex(in[b * in_stride], 0.0f);
}
__global__ void copy_strided_complex_to_real(const cufftComplex* in, float* out, std::size_t count,
                                             std::size_t in_stride, std::size_t out_stride) {
    const std::size_t b = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (b < count) out[b * out_stride] = in[b * in_stride].x;
}

unsigned blocks_for(std::size_t items, unsigned threads = 256) {
    return static_cast<unsigned>((items + threads - 1) / threads);
}

void forward_r2c(const TransformBatch& b, const float* in, std::complex<float>* out) {
    if (b.count == 0) return;
    auto* o = reinterpret_cast<cufftComplex*>(out);
    if (b.size == 1) {
        copy_strided_real_to_complex<<<blocks_for(b.count), 256>>>(in, o, b.count, b.in_stride,
                                                                   b.out_stride);
        check(cudaDeviceSynchronize(), "length-1 forward");
        return;
    }
    std::lock_guard<std::mutex> hold(cache().lock);
    cufftHandle plan = plan_for(CUFFT_R2C, b);
    check(cufft().exec_r2c(plan, const_cast<float*>(in), o), "cufftExecR2C");
    check(cudaDeviceSynchronize(), "forward FFT");
}

void inverse_c2r(const TransformBatch& b, std::complex<float>* in, float* out) {
    if (b.count == 0) return;
    auto* i = reinterpret_cast<cufftComplex*>(in);
    if (b.size == 1) {
        copy_strided_complex_to_real<<<blocks_for(b.count), 256>>>(i, out, b.count, b.in_stride,
                                                                   b.out_stride);
        check(cudaDeviceSynchronize(), "length-1 inverse");
        return;
    }
    std::lock_guard<std::mutex> hold(cache().lock);
    cufftHandle plan = plan_for(CUFFT_C2R, b);
    check(cufft().exec_c2r(plan, i, out), "cufftExecC2R");
    check(cudaDeviceSynchronize(), "inverse FFT");
}

// Makhoul: v holds the even-indexed inputs ascending, then the odd ones descending.
__global__ void dct2_reorder(const float* in, float* v, std::size_t size, std::size_t count,
                             std::size_t in_stride) {
    const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (t >= size * count) return;
    const std::size_t b = t / size, i = t % size;
    const std::size_t to = i % 2 == 0 ? i / 2 : size - 1 - (i - 1) / 2;
    v[b * size + to] = in[b * in_stride + i];
}

// X[k] = s_k·Re(exp(-iπk/2N)·V[k]), V[k] = conj(V[N-k]) above N/2.
__global__ void dct2_twiddle(const cufftComplex* spectrum, float* out, std::size_t size,
                             std::size_t count, std::size_t out_stride) {
    const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (t >= size * count) return;
    const std::size_t bins = size / 2 + 1;
    const std::size_t b = t / size, k = t % size;
    cufftComplex v = k < bins ? spectrum[b * bins + k] : spectrum[b * bins + (size - k)];
    if (k >= bins) v.y = -v.y;
    const double angle = -kPi * static_cast<double>(k) / (2.0 * static_cast<double>(size));
    const double re = static_cast<double>(v.x) * cos(angle) - static_cast<double>(v.y) * sin(angle);
    const double scale =
        k == 0 ? sqrt(1.0 / static_cast<double>(size)) : sqrt(2.0 / static_cast<double>(size));
    out[b * out_stride + k] = static_cast<float>(re * scale);
}

// The inverse: with Z_k = X_k / s_k (Z_N = 0), V[k] = exp(iπk/2N)·(Z_k - i·Z_{N-k}) / N.
__global__ void dct3_twiddle(const float* in, cufftComplex* spectrum, std::size_t size,
                             std::size_t count, std::size_t in_stride) {
    const std::size_t bins = size / 2 + 1;
    const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (t >= bins * count) return;
    const std::size_t b = t / bins, k = t % bins;
    const double n = static_cast<double>(size);
    const double s0 = sqrt(1.0 / n), s = sqrt(2.0 / n);
    const double a = static_cast<double>(in[b * in_stride + k]) / (k == 0 ? s0 : s);
    const double c = k == 0 ? 0.0 : static_cast<double>(in[b * in_stride + (size - k)]) / s;
    const double angle = kPi * static_cast<double>(k) / (2.0 * n);
    // (cos + i sin)(a - i c) = (a cos + c sin) + i (a sin - c cos)
    const double re = (a * cos(angle) + c * sin(angle)) / n;
    const double im = (a * sin(angle) - c * cos(angle)) / n;
    spectrum[b * bins + k] = make_cuFloatComplex(static_cast<float>(re), static_cast<float>(im));
}

__global__ void dct3_unorder(const float* v, float* out, std::size_t size, std::size_t count,
                             std::size_t out_stride) {
    const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (t >= size * count) return;
    const std::size_t b = t / size, i = t % size;
    const std::size_t from = i % 2 == 0 ? i / 2 : size - 1 - (i - 1) / 2;
    out[b * out_stride + i] = v[b * size + from];
}

void dct2(const TransformBatch& b, const float* in, float* out) {
    if (b.count == 0) return;
    const std::size_t bins = r2c_bins(b.size);
    DeviceArray<float> v(b.size * b.count);
    DeviceArray<cufftComplex> spectrum(bins * b.count);
    dct2_reorder<<<blocks_for(b.size * b.count), 256>>>(in, v.data(), b.size, b.count, b.in_stride);
    check(cudaGetLastError(), "dct2 reorder");
    forward_r2c({b.size, b.count, b.size, bins}, v.data(),
                reinterpret_cast<std::complex<float>*>(spectrum.data()));
    dct2_twiddle<<<blocks_for(b.size * b.count), 256>>>(spectrum.data(), out, b.size, b.count,
                                                        b.out_stride);
    check(cudaDeviceSynchronize(), "dct2 twiddle");
}

void dct3(const TransformBatch& b, const float* in, float* out) {
    if (b.count == 0) return;
    const std::size_t bins = r2c_bins(b.size);
    DeviceArray<float> v(b.size * b.count);
    DeviceArray<cufftComplex> spectrum(bins * b.count);
    dct3_twiddle<<<blocks_for(bins * b.count), 256>>>(in, spectrum.data(), b.size, b.count,
                                                      b.in_stride);
    check(cudaGetLastError(), "dct3 twiddle");
    inverse_c2r({b.size, b.count, bins, b.size},
                reinterpret_cast<std::complex<float>*>(spectrum.data()), v.data());
    dct3_unorder<<<blocks_for(b.size * b.count), 256>>>(v.data(), out, b.size, b.count,
                                                        b.out_stride);
    check(cudaDeviceSynchronize(), "dct3 reorder");
}

}  // namespace

const FftBackend& cufft_backend() {
    static const FftBackend backend{"cufft", forward_r2c, inverse_c2r, dct2, dct3};
    return backend;
}

}  // namespace gradcodec::cuda
