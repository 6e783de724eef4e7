#include "io/stream_io.hpp"

#include "gradcodec/error.hpp"
#include "gradcodec_hdf5/hdf5_dump.hpp"

namespace gradcodec::cli {

using namespace gradcodec::hdf5;  // HDF5 dumps: gradcodec_hdf5_io (hdf5/)

ReadLimits limits_with(std::uint64_t max_elements, std::uint64_t max_record_bytes) {
    ReadLimits limits = default_read_limits();
    if (max_elements != 0) {
        limits.max_elements = max_elements;
        // A record can only be as large as its tensor stored raw, plus metadata (saturating).
        constexpr std::uint64_t kMetadata = 1 << 20;
        const std::uint64_t raw =
            max_elements > (UINT64_MAX - kMetadata) / 8 ? UINT64_MAX : max_elements * 8 + kMetadata;
        if (raw > limits.max_record_bytes) limits.max_record_bytes = raw;
    }
    if (max_record_bytes != 0) limits.max_record_bytes = max_record_bytes;
    return limits;
}

std::unique_ptr<StreamReader> open_stream(ByteSource& source, const std::string& input,
                                          ReadLimits limits) {
    try {
        return std::make_unique<StreamReader>(source, limits);
    } catch (const Error& e) {
        if (std::string(e.what()).find("wrong magic") == std::string::npos) throw;
        const bool hdf5 = looks_like_hdf5(input);
        fail(ErrorKind::bad_input,
             input + ": not a gradcodec stream (wrong magic number)" +
                 (hdf5 ? "; it is an HDF5 file: `gradcodec encode` makes a stream of it"
                       : "; streams are made by `gradcodec encode`"));
    }
}

}  // namespace gradcodec::cli
