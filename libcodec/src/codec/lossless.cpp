// lossless: the exact bytes, byte-shuffled and zstd-compressed when that is smaller.
// Shuffling groups the k-th byte of every element together: float exponents then form long
// similar runs that zstd compresses well, while mantissa noise stays apart.
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "codec/codec_def.hpp"
#include "codec/spec_params.hpp"
#include "common/byte_io.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec {
namespace {

enum LosslessMode : std::uint8_t { kRaw = 0, kShuffledZstd = 1, kZstd = 2 };
constexpr std::size_t kPlaneBlock = 1 << 17;  // shuffle in cache-sized pieces

struct LosslessParams {
    int level;
};

LosslessParams parse_params(const CodecSpec& spec) {
    SpecParams p(spec);
    LosslessParams out{static_cast<int>(p.integer("level", 1, -7, 19))};
    p.finish();
    return out;
}

struct CCtxDeleter {
    void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DCtxDeleter {
    void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

void zstd_check(std::size_t rc, const char* what) {
    if (ZSTD_isError(rc)) fail(ErrorKind::io, std::string(what) + ": " + ZSTD_getErrorName(rc));
}

// Compresses the byte planes of `data` (element size `es`) as one zstd frame into `out`,
// gathering each plane in blocks so no full shuffled copy is ever held.
void compress_planes(std::span<const std::uint8_t> data, std::size_t es, int level,
                     std::vector<std::uint8_t>& out) {
    std::unique_ptr<ZSTD_CCtx, CCtxDeleter> cctx(ZSTD_createCCtx());
    zstd_check(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level), "zstd level");
    zstd_check(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 0), "zstd flag");
    zstd_check(ZSTD_CCtx_setPledgedSrcSize(cctx.get(), data.size()), "zstd size");
    const std::size_t start = out.size();
    out.resize(start + ZSTD_compressBound(data.size()));
    ZSTD_outBuffer output{out.data() + start, out.size() - start, 0};
    const std::size_t n = data.size() / es;
    std::vector<std::uint8_t> block(es == 1 ? 0 : std::min(n, kPlaneBlock));
    for (std::size_t plane = 0; plane < es; ++plane) {
        for (std::size_t first = 0; first < n; first += kPlaneBlock) {
            const std::size_t count = std::min(kPlaneBlock, n - first);
            const std::uint8_t* src = data.data() + first * es + plane;
            ZSTD_inBuffer input{src, count, 0};
            if (es != 1) {
                for (std::size_t i = 0; i < count; ++i) block[i] = src[i * es];
                input.src = block.data();
            }
            const bool last = plane + 1 == es && first + count == n;
            const auto mode = last ? ZSTD_e_end : ZSTD_e_continue;
            std::size_t rc = 0;
            do {
                rc = ZSTD_compressStream2(cctx.get(), &output, &input, mode);
                zstd_check(rc, "zstd compress");
            } while (input.pos < input.size || (last && rc != 0));
        }
    }
    if (n == 0) {
        ZSTD_inBuffer empty{nullptr, 0, 0};
        zstd_check(ZSTD_compressStream2(cctx.get(), &output, &empty, ZSTD_e_end), "zstd end");
    }
    out.resize(start + output.pos);
}

void decompress_planes(ByteReader& frame_reader, std::span<std::byte> out, std::size_t es) {
    const auto frame = frame_reader.bytes(frame_reader.remaining());
    const unsigned long long declared = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (declared != out.size()) {
        frame_reader.damaged("zstd frame declares " +
                             (declared >= ZSTD_CONTENTSIZE_ERROR ? std::string("no valid size")
                                                                 : std::to_string(declared)) +
                             " bytes, the tensor needs " + std::to_string(out.size()));
    }
    std::unique_ptr<ZSTD_DCtx, DCtxDeleter> dctx(ZSTD_createDCtx());
    ZSTD_inBuffer input{frame.data(), frame.size(), 0};
    const std::size_t n = out.size() / es;
    auto* dst = reinterpret_cast<std::uint8_t*>(out.data());
    std::vector<std::uint8_t> block(std::min(n, kPlaneBlock));
    std::size_t rc = 1;
    for (std::size_t plane = 0; plane < es; ++plane) {
        for (std::size_t first = 0; first < n; first += kPlaneBlock) {
            const std::size_t count = std::min(kPlaneBlock, n - first);
            ZSTD_outBuffer output{es == 1 ? dst + first : block.data(), count, 0};
            while (output.pos < output.size) {
                rc = ZSTD_decompressStream(dctx.get(), &output, &input);
                if (ZSTD_isError(rc)) {
                    frame_reader.damaged(std::string("zstd: ") + ZSTD_getErrorName(rc));
                }
                if (rc == 0 && output.pos < output.size) frame_reader.damaged("zstd frame ends early");
                if (input.pos == input.size && output.pos < output.size && rc != 0) {
                    frame_reader.damaged("zstd frame is truncated");
                }
            }
            if (es != 1) {
                std::uint8_t* d = dst + first * es + plane;
                for (std::size_t i = 0; i < count; ++i) d[i * es] = block[i];
            }
        }
    }
    if (rc != 0 || input.pos != input.size) frame_reader.damaged("zstd frame has trailing data");
}

std::vector<std::uint8_t> encode(const CodecSpec& spec, const TensorMeta& meta,
                                 std::span<const std::byte> data, const EncodeOptions&) {
    const LosslessParams params = parse_params(spec);
    const std::size_t es = dtype_size(meta.dtype);
    const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(data.data()),
                                              data.size());
    std::vector<std::uint8_t> out;
    out.push_back(es == 1 ? kZstd : kShuffledZstd);
    compress_planes(bytes, es, params.level, out);
    if (out.size() > bytes.size() + 1) {
        out.assign(1, kRaw);
        out.insert(out.end(), bytes.begin(), bytes.end());
    }
    return out;
}

void decode(const TensorMeta& meta, std::span<const std::uint8_t> payload,
            std::span<std::byte> out) {
    ByteReader r(payload, meta.name + ": lossless payload");
    const std::uint8_t mode = r.u8();
    switch (mode) {
        case kRaw: {
            const auto raw = r.bytes(out.size());
            r.expect_end();
            if (!raw.empty()) std::memcpy(out.data(), raw.data(), raw.size());  // data() may be null
            return;
        }
        case kShuffledZstd: decompress_planes(r, out, dtype_size(meta.dtype)); return;
        case kZstd: decompress_planes(r, out, 1); return;
        default: r.damaged("unknown lossless mode " + std::to_string(mode));
    }
}

PayloadStats describe(const TensorMeta&, std::span<const std::uint8_t>) { return {}; }

void validate(const CodecSpec& spec) { parse_params(spec); }

}  // namespace

const CodecDef kLosslessCodec{"lossless", kCodecLossless,
                              "exact bytes; byte-shuffle + zstd when smaller (level=-7..19, 1)",
                              false, validate, encode, decode, describe};

}  // namespace gradcodec
