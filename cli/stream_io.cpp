#include "stream_io.hpp"

#include <unistd.h>

#include "gradcodec/error.hpp"

namespace gradcodec::cli {

ReadLimits limits_with(std::uint64_t max_elements) {
    ReadLimits limits = default_read_limits();
    if (max_elements != 0) {
        limits.max_elements = max_elements;
        // A record can only be as large as its tensor stored raw, plus metadata.
        if (max_elements > limits.max_record_bytes / 8) limits.max_record_bytes = max_elements * 8 + (1 << 20);
    }
    return limits;
}

void refuse_terminal_output(const std::string& output, const char* what) {
    if (output == "-" && isatty(1)) {
        fail(ErrorKind::usage, std::string("refusing to write ") + what +
                                   " to a terminal; redirect standard output or use -o FILE");
    }
}

}  // namespace gradcodec::cli
