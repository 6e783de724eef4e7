// lossless: the exact bytes, byte-shuffled and zstd-compressed when that is smaller.
// Shuffling groups the k-th byte of every element together: float exponents then form long
// similar runs that zstd compresses well, while mantissa noise stays apart.
// The literal-compression parameter is in zstd's experimental section; Debian 12's libzstd
// (1.5.4) supports it and the build links that exact library.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "codec/byte_planes.hpp"
#include "codec/codec_def.hpp"
#include "common/byte_io.hpp"
#include "common/huge_pages.hpp"
#include "common/parallel.hpp"
#include "common/spec_params.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec {
namespace {

enum LosslessMode : std::uint8_t { kRawElements = 0, kBytePlanes = 1 };
enum PlaneMode : std::uint8_t { kPlaneStored = 0, kPlaneZstd = 1 };

// Above this many elements a plane's mode is decided from samples instead of by compressing
// the whole plane: noise planes (low mantissa bytes) then cost a copy, not a zstd pass.
constexpr std::size_t kExactDecisionLimit = 1 << 18;
constexpr std::size_t kSampleSlices = 4;
constexpr std::size_t kSampleSliceBytes = 1 << 14;
constexpr double kWorthCompressing = 0.97;
// With literals Huffman-coded, zstd's fast negative levels only skip match searches that
// rarely pay on gradient bytes: bench_lossless measured -60 both faster than level 1 and
// smaller, on dense and on 40%-zero gradients, and smaller than zstd -1 on the sample dumps.
constexpr int kDefaultLevel = -60;

struct LosslessParams {
    int level;
};

LosslessParams parse_params(const CodecSpec& spec) {
    SpecParams p(spec);
    LosslessParams out{static_cast<int>(p.integer("level", kDefaultLevel, -100, 19))};
    p.finish();
    return out;
}

struct CCtxDeleter {
    void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DCtxDeleter {
    void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};
using CCtx = std::unique_ptr<ZSTD_CCtx, CCtxDeleter>;

// Byte planes of gradients are mostly entropy, not repetition: Huffman-coded literals are
// forced on, which at low and negative levels zstd would otherwise skip.
CCtx make_cctx(int level) {
    CCtx cctx(ZSTD_createCCtx());
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_literalCompressionMode, ZSTD_ps_enable);
    return cctx;
}

std::size_t compress(ZSTD_CCtx* cctx, std::uint8_t* dst, std::size_t capacity,
                     const std::uint8_t* src, std::size_t n) {
    const std::size_t rc = ZSTD_compress2(cctx, dst, capacity, src, n);
    if (ZSTD_isError(rc)) fail(ErrorKind::io, std::string("zstd: ") + ZSTD_getErrorName(rc));
    return rc;
}

// Compresses a few slices of plane k, gathered straight from the elements.
bool plane_worth_compressing(ZSTD_CCtx* cctx, std::span<const std::uint8_t> elements,
                             std::size_t es, std::size_t k) {
    const std::size_t n = elements.size() / es;
    std::vector<std::uint8_t> sample;
    const std::size_t slice = std::min(kSampleSliceBytes, n / kSampleSlices);
    for (std::size_t s = 0; s < kSampleSlices; ++s) {
        const std::size_t first = s * (n / kSampleSlices);
        for (std::size_t i = 0; i < slice; ++i) sample.push_back(elements[(first + i) * es + k]);
    }
    std::vector<std::uint8_t> out(ZSTD_compressBound(sample.size()));
    const std::size_t size = compress(cctx, out.data(), out.size(), sample.data(), sample.size());
    return double(size) < kWorthCompressing * double(sample.size());
}

std::vector<PlaneMode> choose_plane_modes(int level, std::span<const std::uint8_t> elements,
                                          std::size_t es) {
    const std::size_t n = elements.size() / es;
    // Small tensors are decided exactly after compression (see encode); start from zstd.
    std::vector<PlaneMode> modes(es, kPlaneZstd);
    if (n <= kExactDecisionLimit) return modes;
    parallel_for(es, [&](std::size_t k) {
        const CCtx cctx = make_cctx(level);
        modes[k] = plane_worth_compressing(cctx.get(), elements, es, k) ? kPlaneZstd : kPlaneStored;
    });
    return modes;
}

// Elements per block of the split: a block's planes stay in cache on their way to zstd, so no
// plane is ever held whole (a 94 MB tensor would otherwise need 47 MB of fresh scratch).
constexpr std::size_t kBlock = std::size_t{1} << 16;

// One zstd plane compressed as a stream, block by block, into a frame buffer of the worst-case
// size, left uninitialised so that only the pages zstd writes are touched.
struct PlaneStream {
    std::size_t plane;
    CCtx cctx;
    std::unique_ptr<std::uint8_t[]> frame;
    std::size_t capacity;
    std::size_t size = 0;

    PlaneStream(std::size_t k, int level, std::size_t n)
        : plane(k),
          cctx(make_cctx(level)),
          frame(std::make_unique_for_overwrite<std::uint8_t[]>(ZSTD_compressBound(n))),
          capacity(ZSTD_compressBound(n)) {
        ZSTD_CCtx_setPledgedSrcSize(cctx.get(), n);  // the frame declares the plane's size
    }

    void feed(const std::uint8_t* bytes, std::size_t count, bool last) {
        ZSTD_inBuffer in{bytes, count, 0};
        ZSTD_outBuffer out{frame.get(), capacity, size};
        const ZSTD_EndDirective directive = last ? ZSTD_e_end : ZSTD_e_continue;
        std::size_t rc = 0;
        do {
            rc = ZSTD_compressStream2(cctx.get(), &out, &in, directive);
            if (ZSTD_isError(rc))
                fail(ErrorKind::io, std::string("zstd: ") + ZSTD_getErrorName(rc));
        } while (in.pos < in.size || (last && rc != 0));
        size = out.pos;
    }
};

// Splits the elements block by block: planes with a place in `stored` are written there, and
// each stream is fed its plane's block. Streams see the same blocks whichever call feeds them,
// so their frames do not depend on how planes are shared among threads.
void split_blocks(std::span<const std::uint8_t> elements, std::size_t es,
                  const std::vector<std::uint8_t*>& stored, std::span<PlaneStream> streams) {
    const std::size_t n = elements.size() / es;
    const std::size_t stride = std::min(n, kBlock);
    const auto buffer = std::make_unique_for_overwrite<std::uint8_t[]>(es * stride);
    std::vector<std::uint8_t*> planes(es);
    for (std::size_t first = 0; first < n; first += kBlock) {
        const std::size_t size = std::min(kBlock, n - first);
        for (std::size_t k = 0; k < es; ++k)
            planes[k] = stored[k] ? stored[k] + first : buffer.get() + k * stride;
        split_planes(elements.data() + first * es, size, es, planes.data());
        for (PlaneStream& s : streams) s.feed(planes[s.plane], size, first + size == n);
    }
}

// Payload: mode, plane count, plane modes, the stored planes, then each zstd plane as
// (u64 length, frame). Stored planes come first so the split can write them in place. On one
// thread a single pass over the elements splits and compresses every plane; on more, each zstd
// plane has a thread of its own and one more writes the stored planes.
std::vector<std::uint8_t> encode_planes(std::span<const std::uint8_t> elements, std::size_t es,
                                        int level) {
    const std::size_t n = elements.size() / es;
    std::vector<PlaneMode> modes = choose_plane_modes(level, elements, es);
    std::vector<std::uint8_t> out(2 + es);
    out[0] = kBytePlanes;
    out[1] = static_cast<std::uint8_t>(es);
    std::copy(modes.begin(), modes.end(), out.begin() + 2);
    std::vector<PlaneStream> streams;
    for (std::size_t k = 0; k < es; ++k)
        if (modes[k] == kPlaneZstd) streams.emplace_back(k, level, n);
    const std::size_t stored = es - streams.size();
    const std::size_t stored_at = out.size();
    // One reservation for the worst case: growing by doubling would briefly hold two copies.
    out.reserve(stored_at + stored * n + streams.size() * (8 + ZSTD_compressBound(n)));
    advise_huge_pages(out.data(), out.capacity());
    out.resize(stored_at + stored * n);
    std::vector<std::uint8_t*> stored_planes(es, nullptr);
    for (std::size_t k = 0, s = 0; k < es; ++k)
        if (modes[k] == kPlaneStored) stored_planes[k] = out.data() + stored_at + n * s++;
    if (codec_threads() <= 1 || streams.size() + (stored ? 1 : 0) <= 1) {
        split_blocks(elements, es, stored_planes, streams);
    } else {
        const std::vector<std::uint8_t*> none(es, nullptr);
        parallel_for(streams.size() + 1, [&](std::size_t t) {
            if (t == streams.size()) {
                if (stored) split_blocks(elements, es, stored_planes, {});
                return;
            }
            split_blocks(elements, es, none, std::span<PlaneStream>(&streams[t], 1));
        });
    }
    for (PlaneStream& s : streams) {
        for (int b = 0; b < 8; ++b)
            out.push_back(static_cast<std::uint8_t>(std::uint64_t{s.size} >> (8 * b)));
        out.insert(out.end(), s.frame.get(), s.frame.get() + s.size);
        s.frame.reset();
    }
    return out;
}

std::any compile(const CodecSpec& spec) {
    return parse_params(spec);
}

std::vector<std::uint8_t> encode(const std::any& compiled, const TensorMeta& meta,
                                 std::span<const std::byte> data, const EncodeOptions&) {
    const auto& params = std::any_cast<const LosslessParams&>(compiled);
    const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(data.data()),
                                              data.size());
    std::vector<std::uint8_t> out;
    if (!bytes.empty()) out = encode_planes(bytes, dtype_size(meta.dtype), params.level);
    if (bytes.empty() || out.size() >= bytes.size() + 1) {
        out.assign(1, kRawElements);
        out.insert(out.end(), bytes.begin(), bytes.end());
    }
    return out;
}

void decode_planes(ByteReader& r, std::span<std::byte> out, std::size_t es) {
    const std::uint8_t count = r.u8();
    if (count != es)
        r.damaged("declares " + std::to_string(count) + " byte planes, the dtype has " +
                  std::to_string(es));
    const std::size_t n = out.size() / es;
    const auto modes = r.bytes(es);
    auto* elements = reinterpret_cast<std::uint8_t*>(out.data());
    for (std::size_t k = 0; k < es; ++k) {
        if (modes[k] > kPlaneZstd)
            r.damaged("plane " + std::to_string(k) + " has unknown mode " +
                      std::to_string(modes[k]));
        if (modes[k] == kPlaneStored) merge_plane(r.bytes(n).data(), n, es, k, elements);
    }
    std::vector<std::span<const std::uint8_t>> frames;
    std::vector<std::size_t> frame_planes;
    for (std::size_t k = 0; k < es; ++k) {
        if (modes[k] != kPlaneZstd) continue;
        const auto frame = r.bytes(r.u64());
        const unsigned long long declared = ZSTD_getFrameContentSize(frame.data(), frame.size());
        if (declared != n) {
            r.damaged("plane " + std::to_string(k) + " zstd frame declares " +
                      (declared >= ZSTD_CONTENTSIZE_ERROR ? std::string("no valid size")
                                                          : std::to_string(declared)) +
                      " bytes, the tensor needs " + std::to_string(n));
        }
        frames.push_back(frame);
        frame_planes.push_back(k);
    }
    // Each plane decompresses on its own (in parallel when allowed) and fills byte k of the
    // elements, which no other plane writes.
    parallel_for(frames.size(), [&](std::size_t z) {
        const std::unique_ptr<ZSTD_DCtx, DCtxDeleter> dctx(ZSTD_createDCtx());
        std::vector<std::uint8_t> plane(n);
        const std::size_t rc =
            ZSTD_decompressDCtx(dctx.get(), plane.data(), n, frames[z].data(), frames[z].size());
        if (ZSTD_isError(rc) || rc != n) {
            r.damaged("plane " + std::to_string(frame_planes[z]) + ": " +
                      (ZSTD_isError(rc) ? ZSTD_getErrorName(rc) : "short frame"));
        }
        merge_plane(plane.data(), n, es, frame_planes[z], elements);
    });
    r.expect_end();
}

void decode(const TensorMeta& meta, std::span<const std::uint8_t> payload,
            std::span<std::byte> out) {
    ByteReader r(payload, meta.name + ": lossless payload");
    const std::uint8_t mode = r.u8();
    switch (mode) {
        case kRawElements: {
            const auto raw = r.bytes(out.size());
            r.expect_end();
            if (!raw.empty()) std::memcpy(out.data(), raw.data(), raw.size());
            return;
        }
        case kBytePlanes:
            decode_planes(r, out, dtype_size(meta.dtype));
            return;
        default:
            r.damaged("unknown lossless mode " + std::to_string(mode));
    }
}

PayloadStats describe(const TensorMeta&, std::span<const std::uint8_t>) {
    return {};
}

// Byte planes are kept only when smaller than the raw elements, which cost one mode byte.
std::uint64_t payload_bound(const std::any&, const TensorMeta& meta, const EncodeOptions&) {
    return 1 + meta.byte_count();
}

}  // namespace

const CodecDef kLosslessCodec{
    "lossless",
    kCodecLossless,
    "exact bytes; byte planes + zstd where smaller (level=-100..19, default -60)",
    false,
    compile,
    encode,
    decode,
    describe,
    payload_bound};

}  // namespace gradcodec
