#pragma once
// The cuFFT backend of the transform interface (transform/fft_backend.hpp): every pointer it
// takes lives in device memory. Calls are synchronous with respect to the host (they end
// with the transform complete), on the legacy default stream.
#include "transform/fft_backend.hpp"

namespace gradcodec::cuda {

const FftBackend& cufft_backend();

}  // namespace gradcodec::cuda
