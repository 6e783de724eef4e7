#pragma once
#include <string>
#include <vector>

namespace gradcodec {

// Names of the FFT backends this build carries; the transform module owns the list.
std::vector<std::string> compiled_fft_backends();

}  // namespace gradcodec
