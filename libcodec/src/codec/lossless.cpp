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
#include "common/checked_size.hpp"
#include "common/huge_pages.hpp"
#include "common/parallel.hpp"
#include "common/scratch.hpp"
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

// zstd contexts kept per thread across calls: creating one costs more than compressing a small
// tensor. One call on one thread streams several planes at once, so a thread keeps one context
// per slot. Byte planes of gradients are mostly entropy, not repetition: Huffman-coded
// literals are forced on, which at low and negative levels zstd would otherwise skip.
ZSTD_CCtx* thread_cctx(std::size_t slot, int level) {
    static thread_local std::vector<CCtx> contexts;
    if (contexts.size() <= slot) contexts.resize(slot + 1);
    if (!contexts[slot]) contexts[slot].reset(ZSTD_createCCtx());
    ZSTD_CCtx* cctx = contexts[slot].get();
    if (!cctx) fail(ErrorKind::io, "zstd: cannot create a compression context");
    ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_literalCompressionMode, ZSTD_ps_enable);
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
    ScratchVector<std::uint8_t> sample;
    const std::size_t slice = std::min(kSampleSliceBytes, n / kSampleSlices);
    for (std::size_t s = 0; s < kSampleSlices; ++s) {
        const std::size_t first = s * (n / kSampleSlices);
        for (std::size_t i = 0; i < slice; ++i) sample.push_back(elements[(first + i) * es + k]);
    }
    ScratchVector<std::uint8_t> out(ZSTD_compressBound(sample.size()));
    const std::size_t size = compress(cctx, out.data(), out.size(), sample.data(), sample.size());
    return double(size) < kWorthCompressing * double(sample.size());
}

ScratchVector<PlaneMode> choose_plane_modes(int level, std::span<const std::uint8_t> elements,
                                            std::size_t es) {
    const std::size_t n = elements.size() / es;
    // Small tensors are decided exactly after compression (see encode); start from zstd.
    ScratchVector<PlaneMode> modes(es, kPlaneZstd);
    if (n <= kExactDecisionLimit) return modes;
    parallel_for(es, [&](std::size_t k) {
        modes[k] = plane_worth_compressing(thread_cctx(0, level), elements, es, k) ? kPlaneZstd
                                                                                   : kPlaneStored;
    });
    return modes;
}

// Elements per block of the split: a block's planes stay in cache on their way to zstd, so no
// plane is ever held whole (a 94 MB tensor would otherwise need 47 MB of fresh scratch).
constexpr std::size_t kBlock = std::size_t{1} << 16;

// One zstd plane compressed as a stream, block by block, into a frame buffer of the worst-case
// size, left uninitialised so that only the pages zstd writes are touched.
// The context is set up on the thread that feeds the stream (see start).
struct PlaneStream {
    std::size_t plane;
    std::size_t slot;  // which of the feeding thread's contexts
    ZSTD_CCtx* cctx = nullptr;
    ScratchArray<std::uint8_t> frame;
    std::size_t capacity;
    std::size_t size = 0;

    PlaneStream(std::size_t k, std::size_t context_slot, std::size_t n)
        : plane(k),
          slot(context_slot),
          frame(scratch_array_for_overwrite<std::uint8_t>(ZSTD_compressBound(n))),
          capacity(ZSTD_compressBound(n)) {}

    void start(int level, std::size_t n) {
        cctx = thread_cctx(slot, level);
        ZSTD_CCtx_setPledgedSrcSize(cctx, n);  // the frame declares the plane's size
    }

    void feed(const std::uint8_t* bytes, std::size_t count, bool last) {
        ZSTD_inBuffer in{bytes, count, 0};
        ZSTD_outBuffer out{frame.get(), capacity, size};
        const ZSTD_EndDirective directive = last ? ZSTD_e_end : ZSTD_e_continue;
        std::size_t rc = 0;
        do {
            rc = ZSTD_compressStream2(cctx, &out, &in, directive);
            if (ZSTD_isError(rc))
                fail(ErrorKind::io, std::string("zstd: ") + ZSTD_getErrorName(rc));
        } while (in.pos < in.size || (last && rc != 0));
        size = out.pos;
    }
};

// Splits the elements block by block: planes with a place in `stored` are written there, and
// each stream is fed its plane's block. Streams see the same blocks whichever call feeds them,
// so their frames do not depend on how planes are shared among threads.
void split_blocks(std::span<const std::uint8_t> elements, std::size_t es, int level,
                  const ScratchVector<std::uint8_t*>& stored, std::span<PlaneStream> streams) {
    const std::size_t n = elements.size() / es;
    for (PlaneStream& s : streams) s.start(level, n);
    const std::size_t stride = std::min(n, kBlock);
    const auto buffer = scratch_array_for_overwrite<std::uint8_t>(es * stride);
    ScratchVector<std::uint8_t*> planes(es);
    for (std::size_t first = 0; first < n; first += kBlock) {
        const std::size_t size = std::min(kBlock, n - first);
        for (std::size_t k = 0; k < es; ++k)
            planes[k] = stored[k] ? stored[k] + first : buffer.get() + k * stride;
        split_planes(elements.data() + first * es, size, es, planes.data());
        for (PlaneStream& s : streams) s.feed(planes[s.plane], size, first + size == n);
    }
}

// Payload: mode, plane count, plane modes, the stored planes, then each zstd plane as
// (u64 length, frame). Stored planes come first so the split writes them in place, straight
// into the output. On one thread a single pass over the elements splits and compresses every
// plane; on more, each zstd plane has a thread of its own and one more writes the stored
// planes. Returns false, having written nothing, when the planes would not be smaller than
// the raw elements.
bool write_planes(std::span<const std::uint8_t> elements, std::size_t es, int level,
                  ByteOutput& out) {
    const std::size_t n = elements.size() / es;
    const ScratchVector<PlaneMode> modes = choose_plane_modes(level, elements, es);
    ScratchVector<PlaneStream> streams;
    for (std::size_t k = 0; k < es; ++k)
        if (modes[k] == kPlaneZstd) streams.emplace_back(k, streams.size(), n);
    const std::size_t stored = es - streams.size();
    const std::size_t header = 2 + es;
    const std::size_t raw_size = 1 + elements.size();
    if (header + stored * n + 8 * streams.size() >= raw_size) return false;

    const std::size_t start = out.size();
    // Planes are kept only below raw_size: reserving it keeps the stored planes, written in
    // place, from being copied when the zstd frames are appended.
    out.reserve(raw_size);
    std::uint8_t* head = out.extend(header + stored * n);
    head[0] = kBytePlanes;
    head[1] = static_cast<std::uint8_t>(es);
    std::copy(modes.begin(), modes.end(), head + 2);
    ScratchVector<std::uint8_t*> stored_planes(es, nullptr);
    for (std::size_t k = 0, s = 0; k < es; ++k)
        if (modes[k] == kPlaneStored) stored_planes[k] = head + header + n * s++;
    if (codec_threads() <= 1 || streams.size() + (stored ? 1 : 0) <= 1) {
        split_blocks(elements, es, level, stored_planes, streams);
    } else {
        const ScratchVector<std::uint8_t*> none(es, nullptr);
        parallel_for(streams.size() + 1, [&](std::size_t t) {
            if (t == streams.size()) {
                if (stored) split_blocks(elements, es, level, stored_planes, {});
                return;
            }
            split_blocks(elements, es, level, none, std::span<PlaneStream>(&streams[t], 1));
        });
    }
    std::size_t total = header + stored * n;
    for (const PlaneStream& s : streams) total += 8 + s.size;
    if (total >= raw_size) {
        out.shrink_to(start);
        return false;
    }
    ByteWriter w(out);
    for (PlaneStream& s : streams) {
        w.u64(s.size);
        w.bytes({s.frame.get(), s.size});
        s.frame.reset();
    }
    return true;
}

void encode(const LosslessParams& params, const TensorMeta& meta, std::span<const std::byte> data,
            const EncodeOptions&, ByteOutput& out) {
    const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(data.data()),
                                              data.size());
    if (!bytes.empty() && write_planes(bytes, dtype_size(meta.dtype), params.level, out)) return;
    std::uint8_t* raw = out.extend(1 + bytes.size());
    raw[0] = kRawElements;
    if (!bytes.empty()) std::memcpy(raw + 1, bytes.data(), bytes.size());
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
    ScratchVector<std::span<const std::uint8_t>> frames;
    ScratchVector<std::size_t> frame_planes;
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
        ScratchVector<std::uint8_t> plane(n);
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
    ByteReader r(payload, meta.name, "lossless payload");
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
std::uint64_t payload_bound(const LosslessParams&, const TensorMeta& meta, const EncodeOptions&) {
    return size_add(1, meta.byte_count());
}

}  // namespace

const CodecDef kLosslessCodec = codec_row<parse_params, encode, payload_bound>({
    .name = "lossless",
    .id = kCodecLossless,
    .payload = "lossless",
    .summary = "exact bytes: byte planes + zstd where smaller (level=-100..19)",
    .defaults = "level=-60",
    .floats_only = false,
    .filter_ok = true,
    .decode = decode,
    .describe = describe,
});

}  // namespace gradcodec
