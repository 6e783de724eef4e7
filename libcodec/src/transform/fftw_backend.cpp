// The FFTW single-precision backend. One cached plan per size runs every chunk through
// FFTW's new-array execute functions; chunks that are not SIMD-aligned go through an
// aligned per-thread scratch copy, because a plan made on aligned arrays must not run on
// unaligned ones.
#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>

#include "transform/fft_backend.hpp"
#include "transform/fftw_plan_cache.hpp"

namespace gradcodec {
namespace {

class AlignedScratch {
  public:
    AlignedScratch() = default;
    AlignedScratch(const AlignedScratch&) = delete;
    AlignedScratch& operator=(const AlignedScratch&) = delete;
    ~AlignedScratch() { fftwf_free(data_); }
    void* get(std::size_t bytes) {
        if (bytes > capacity_) {
            fftwf_free(data_);
            data_ = nullptr;
            capacity_ = 0;
            data_ = fftwf_malloc(bytes);
            if (data_ == nullptr) throw std::bad_alloc();
            capacity_ = bytes;
        }
        return data_;
    }

  private:
    void* data_ = nullptr;
    std::size_t capacity_ = 0;
};

// Two per thread: one for a chunk's input, one for its output.
AlignedScratch& scratch_in() {
    thread_local AlignedScratch s;
    return s;
}
AlignedScratch& scratch_out() {
    thread_local AlignedScratch s;
    return s;
}

bool aligned(const void* p) {
    return fftwf_alignment_of(static_cast<float*>(const_cast<void*>(p))) == 0;
}

// Runs `execute(in, out)` on each chunk, staging through scratch when a pointer is unaligned.
template <class In, class Out, class Execute>
void for_each_chunk(const TransformBatch& b, const In* in, std::size_t in_len, Out* out,
                    std::size_t out_len, Execute execute) {
    for (std::size_t c = 0; c < b.count; ++c) {
        const In* src = in + c * b.in_stride;
        Out* dst = out + c * b.out_stride;
        In* staged_in = nullptr;
        if (!aligned(src)) {
            staged_in = static_cast<In*>(scratch_in().get(sizeof(In) * in_len));
            std::memcpy(staged_in, src, sizeof(In) * in_len);
        }
        Out* staged_out =
            aligned(dst) ? nullptr : static_cast<Out*>(scratch_out().get(sizeof(Out) * out_len));
        execute(staged_in != nullptr ? staged_in : const_cast<In*>(src),
                staged_out != nullptr ? staged_out : dst);
        if (staged_out != nullptr) std::memcpy(dst, staged_out, sizeof(Out) * out_len);
    }
}

fftwf_complex* as_fftw(std::complex<float>* p) {
    return reinterpret_cast<fftwf_complex*>(p);
}

void fftw_forward_r2c(const TransformBatch& b, const float* in, std::complex<float>* out) {
    if (b.count == 0) return;
    const auto plan = fftw_plan_for(FftwKind::r2c, b.size);
    for_each_chunk(b, in, b.size, out, r2c_bins(b.size), [&](float* i, std::complex<float>* o) {
        fftwf_execute_dft_r2c(plan->plan, i, as_fftw(o));
    });
}

void fftw_inverse_c2r(const TransformBatch& b, std::complex<float>* in, float* out) {
    if (b.count == 0) return;
    const auto plan = fftw_plan_for(FftwKind::c2r, b.size);
    for_each_chunk(b, in, r2c_bins(b.size), out, b.size, [&](std::complex<float>* i, float* o) {
        fftwf_execute_dft_c2r(plan->plan, as_fftw(i), o);
    });
}

// REDFT10 computes 2·sum_j x_j·cos(π(j+1/2)k/n); halving and s_k make it orthonormal.
struct DctScale {
    explicit DctScale(std::size_t n)
        : dc(static_cast<float>(std::sqrt(1.0 / static_cast<double>(n)))),
          ac(static_cast<float>(std::sqrt(2.0 / static_cast<double>(n)))) {}
    float dc;  // s_0
    float ac;  // s_k, k > 0
};

void fftw_dct2(const TransformBatch& b, const float* in, float* out) {
    if (b.count == 0) return;
    const auto plan = fftw_plan_for(FftwKind::redft10, b.size);
    const DctScale s(b.size);
    const float dc = 0.5f * s.dc;
    const float ac = 0.5f * s.ac;
    for_each_chunk(b, in, b.size, out, b.size, [&](float* i, float* o) {
        fftwf_execute_r2r(plan->plan, i, o);
        o[0] *= dc;
        for (std::size_t k = 1; k < b.size; ++k) o[k] *= ac;
    });
}

// REDFT01 computes X_0 + 2·sum_{k>0} X_k·cos(π(j+1/2)k/n); prescaling X makes it DCT-III.
void fftw_dct3(const TransformBatch& b, const float* in, float* out) {
    if (b.count == 0) return;
    const auto plan = fftw_plan_for(FftwKind::redft01, b.size);
    const DctScale s(b.size);
    const float ac = 0.5f * s.ac;
    auto* scaled = static_cast<float*>(scratch_in().get(sizeof(float) * b.size));
    for (std::size_t c = 0; c < b.count; ++c) {
        const float* src = in + c * b.in_stride;
        float* dst = out + c * b.out_stride;
        scaled[0] = src[0] * s.dc;
        for (std::size_t k = 1; k < b.size; ++k) scaled[k] = src[k] * ac;
        if (aligned(dst)) {
            fftwf_execute_r2r(plan->plan, scaled, dst);
        } else {
            auto* staged = static_cast<float*>(scratch_out().get(sizeof(float) * b.size));
            fftwf_execute_r2r(plan->plan, scaled, staged);
            std::memcpy(dst, staged, sizeof(float) * b.size);
        }
    }
}

}  // namespace

const FftBackend& fftw_backend() {
    static const FftBackend backend{"fftw3f", fftw_forward_r2c, fftw_inverse_c2r, fftw_dct2,
                                    fftw_dct3};
    return backend;
}

const FftBackend& default_fft_backend() {
    return fftw_backend();
}

}  // namespace gradcodec
