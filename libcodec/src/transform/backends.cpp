#include "transform/backends.hpp"

#include <fftw3.h>

namespace gradcodec {

std::vector<std::string> compiled_fft_backends() {
    std::vector<std::string> names{std::string("fftw3f ") + fftwf_version};
    return names;
}

}  // namespace gradcodec
