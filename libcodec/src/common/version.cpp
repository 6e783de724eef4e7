#include "gradcodec/version.hpp"

#include "gradcodec/version.h"

namespace gradcodec {

const char* library_version() {
    return GRADCODEC_VERSION_STRING;
}

std::string format_version_string() {
    return std::to_string(kFormatMajor) + "." + std::to_string(kFormatMinor);
}

}  // namespace gradcodec
