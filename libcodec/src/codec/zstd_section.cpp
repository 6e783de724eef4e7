#include "codec/zstd_section.hpp"
#include "common/scratch.hpp"

#include <zstd.h>

#include <memory>
#include <string>

namespace gradcodec {
namespace {

// One compression and one decompression context per thread, kept across calls: a context
// costs more to create than a small section takes to compress.
struct ContextFree {
    void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
    void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

ZSTD_CCtx* thread_section_cctx() {
    static thread_local std::unique_ptr<ZSTD_CCtx, ContextFree> context(ZSTD_createCCtx());
    if (!context) fail(ErrorKind::io, "zstd: cannot create a compression context");
    return context.get();
}

ZSTD_DCtx* thread_section_dctx() {
    static thread_local std::unique_ptr<ZSTD_DCtx, ContextFree> context(ZSTD_createDCtx());
    if (!context) fail(ErrorKind::io, "zstd: cannot create a decompression context");
    return context.get();
}

}  // namespace

ScratchVector<std::uint8_t> zstd_compress_section(std::span<const std::uint8_t> raw, int level) {
    ScratchVector<std::uint8_t> out(ZSTD_compressBound(raw.size()));
    // ZSTD_compressCCtx resets the context's parameters: the frame is ZSTD_compress's.
    const std::size_t rc = ZSTD_compressCCtx(thread_section_cctx(), out.data(), out.size(),
                                             raw.data(), raw.size(), level);
    if (ZSTD_isError(rc))
        fail(ErrorKind::io, std::string("zstd compress: ") + ZSTD_getErrorName(rc));
    out.resize(rc);
    return out;
}

std::uint64_t zstd_section_size(std::span<const std::uint8_t> frame, std::uint64_t max_size,
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
    return declared;
}

ScratchVector<std::uint8_t> zstd_decompress_section(std::span<const std::uint8_t> frame,
                                                    std::uint64_t max_size,
                                                    const ByteReader& errors) {
    const std::uint64_t declared = zstd_section_size(frame, max_size, errors);
    ScratchVector<std::uint8_t> out(declared);
    const std::size_t rc = ZSTD_decompressDCtx(thread_section_dctx(), out.data(), out.size(),
                                               frame.data(), frame.size());
    if (ZSTD_isError(rc) || rc != declared) {
        errors.damaged(std::string("zstd section: ") +
                       (ZSTD_isError(rc) ? ZSTD_getErrorName(rc) : "size mismatch"));
    }
    return out;
}

}  // namespace gradcodec
