#pragma once
// The transform backend interface: batched real FFTs and orthonormal DCTs over equal-length
// chunks. Device-agnostic: a backend may require its pointers to live in device memory
// (cuFFT, later); the FFTW backend takes host memory. All transforms are out-of-place.
#include <complex>
#include <cstddef>
#include <string_view>

namespace gradcodec {

// `count` chunks of `size` values each. Chunk b of the input starts at in + b·in_stride and
// chunk b of the output at out + b·out_stride, strides counted in elements of the array's
// own type (floats or complex bins). Strides let a caller pad chunks for alignment.
struct TransformBatch {
    std::size_t size = 0;
    std::size_t count = 1;
    std::size_t in_stride = 0;
    std::size_t out_stride = 0;
};

// Number of complex bins a real FFT of `size` values has: size/2 + 1.
constexpr std::size_t r2c_bins(std::size_t size) {
    return size / 2 + 1;
}

struct FftBackend {
    std::string_view name;
    // Unnormalised forward real DFT: out[k] = sum_j in[j]·exp(-2πi·j·k/size), k = 0..size/2.
    void (*forward_r2c)(const TransformBatch& batch, const float* in, std::complex<float>* out);
    // Unnormalised inverse of the Hermitian spectrum: out[j] = sum over all size bins of
    // X[k]·exp(+2πi·j·k/size), with X[size-k] = conj(X[k]); so inverse(forward(x)) = size·x.
    // The imaginary parts of the DC and (even size) Nyquist bins are ignored. May overwrite
    // `in`, which the caller treats as scratch.
    void (*inverse_c2r)(const TransformBatch& batch, std::complex<float>* in, float* out);
    // Orthonormal DCT-II: out[k] = s_k·sum_j in[j]·cos(π·(j+1/2)·k/size),
    // s_0 = sqrt(1/size), s_k = sqrt(2/size) for k > 0.
    void (*dct2)(const TransformBatch& batch, const float* in, float* out);
    // Orthonormal DCT-III, the exact inverse of dct2:
    // out[j] = sum_k s_k·in[k]·cos(π·(j+1/2)·k/size).
    void (*dct3)(const TransformBatch& batch, const float* in, float* out);
};

// The FFTW single-precision backend (host memory, any size >= 1, thread-safe).
const FftBackend& fftw_backend();

// The backend the codecs use on the CPU.
const FftBackend& default_fft_backend();

}  // namespace gradcodec
