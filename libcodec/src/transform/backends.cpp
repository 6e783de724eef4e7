#include "gradcodec/version.hpp"

#include <fftw3.h>

#include "transform/fft_backend.hpp"

namespace gradcodec {

std::vector<std::string> fft_backends() {
    std::vector<std::string> names{std::string(fftw_backend().name) + " " + fftwf_version};
    return names;
}

}  // namespace gradcodec
