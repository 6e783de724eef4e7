#include "stream_io.hpp"

#include <unistd.h>

#include "gradcodec/error.hpp"

namespace gradcodec::cli {

ReadLimits limits_with(std::uint64_t max_elements, std::uint64_t max_record_bytes) {
    ReadLimits limits = default_read_limits();
    if (max_elements != 0) {
        limits.max_elements = max_elements;
        // A record can only be as large as its tensor stored raw, plus metadata (saturating).
        constexpr std::uint64_t kMetadata = 1 << 20;
        const std::uint64_t raw = max_elements > (UINT64_MAX - kMetadata) / 8 ? UINT64_MAX : max_elements * 8 + kMetadata;
        if (raw > limits.max_record_bytes) limits.max_record_bytes = raw;
    }
    if (max_record_bytes != 0) limits.max_record_bytes = max_record_bytes;
    return limits;
}

void refuse_terminal_output(const std::string& output, const char* what) {
    if (output == "-" && isatty(1)) {
        fail(ErrorKind::usage, std::string("refusing to write ") + what +
                                   " to a terminal; redirect standard output or use -o FILE");
    }
}

}  // namespace gradcodec::cli
