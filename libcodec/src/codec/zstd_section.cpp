#include "codec/zstd_section.hpp"

#include <zstd.h>

#include <string>

namespace gradcodec {

std::vector<std::uint8_t> zstd_compress_section(std::span<const std::uint8_t> raw, int level) {
    std::vector<std::uint8_t> out(ZSTD_compressBound(raw.size()));
    const std::size_t rc = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), level);
    if (ZSTD_isError(rc))
        fail(ErrorKind::io, std::string("zstd compress: ") + ZSTD_getErrorName(rc));
    out.resize(rc);
    return out;
}

std::vector<std::uint8_t> zstd_decompress_section(std::span<const std::uint8_t> frame,
                                                  std::uint64_t max_size,
                                                  const ByteReader& errors) {
    const unsigned long long declared = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (declared == ZSTD_CONTENTSIZE_ERROR || declared == ZSTD_CONTENTSIZE_UNKNOWN) {
        errors.damaged("zstd section does not declare its size");
    }
    if (declared > max_size) {
        errors.damaged("zstd section declares " + std::to_string(declared) +
                       " bytes, more than the limit of " + std::to_string(max_size));
    }
    if (ZSTD_findFrameCompressedSize(frame.data(), frame.size()) != frame.size()) {
        errors.damaged("zstd section is not exactly one frame");
    }
    std::vector<std::uint8_t> out(declared);
    const std::size_t rc = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
    if (ZSTD_isError(rc) || rc != declared) {
        errors.damaged(std::string("zstd section: ") +
                       (ZSTD_isError(rc) ? ZSTD_getErrorName(rc) : "size mismatch"));
    }
    return out;
}

}  // namespace gradcodec
