#include "gradcodec/version.hpp"

#include "transform/backends.hpp"

namespace gradcodec {

const char* library_version() { return GRADCODEC_VERSION; }

std::string format_version_string() {
    return std::to_string(kFormatMajor) + "." + std::to_string(kFormatMinor);
}

std::vector<std::string> fft_backends() { return compiled_fft_backends(); }

}  // namespace gradcodec
