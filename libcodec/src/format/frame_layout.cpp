#include "format/frame_layout.hpp"

#include <string>

#include "common/byte_io.hpp"
#include "format/checksum.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec {
namespace {

constexpr std::uint8_t kFrameMagic[4] = {0x89, 'G', 'C', 'F'};
constexpr std::uint8_t kMustUnderstandFlags = 0x0F;  // none defined in 1.0

void put_le(std::uint8_t* at, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) at[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

[[noreturn]] void damaged(const std::string& why) {
    fail(ErrorKind::damaged_stream, "frame: " + why);
}

}  // namespace

std::size_t frame_header_size(std::size_t rank) {
    return kFrameHeaderBytes + (rank == 1 ? 0 : 8 * rank);
}

void write_frame_header(const FrameInfo& info, std::span<std::uint8_t> out) {
    std::uint8_t* p = out.data();
    for (int i = 0; i < 4; ++i) p[i] = kFrameMagic[i];
    p[4] = kFrameMajor;
    p[5] = kFrameMinor;
    p[6] = 0;  // flags
    p[7] = static_cast<std::uint8_t>(info.dtype);
    put_le(p + 8, info.codec_id, 2);
    p[10] = static_cast<std::uint8_t>(info.shape.size());
    p[11] = 0;
    put_le(p + 12, info.element_count, 8);
    if (info.shape.size() == 1) return;
    for (std::size_t d = 0; d < info.shape.size(); ++d) put_le(p + 20 + 8 * d, info.shape[d], 8);
}

void seal_frame(std::span<std::uint8_t> frame) {
    const std::size_t covered = frame.size() - kFrameChecksumBytes;
    put_le(frame.data() + covered, checksum(frame.first(covered)), 8);
}

FrameInfo parse_frame(std::span<const std::uint8_t> frame) {
    if (frame.size() < 6 || std::memcmp(frame.data(), kFrameMagic, 4) != 0) {
        damaged("not a gradcodec frame (bad magic)");
    }
    // The version comes before the checksum: a newer major may checksum differently.
    if (frame[4] != kFrameMajor) {
        damaged("frame format " + std::to_string(frame[4]) + "." + std::to_string(frame[5]) +
                " is not supported by this gradcodec (it reads " + std::to_string(kFrameMajor) +
                ".x)");
    }
    if (frame.size() < kFrameHeaderBytes + kFrameChecksumBytes) {
        damaged(std::to_string(frame.size()) + " bytes, shorter than the smallest frame (" +
                std::to_string(kFrameHeaderBytes + kFrameChecksumBytes) + ")");
    }
    ByteReader r(frame.first(frame.size() - kFrameChecksumBytes), "frame");
    r.bytes(6);
    const std::uint8_t flags = r.u8();
    const std::uint8_t dtype_code = r.u8();
    FrameInfo info;
    info.codec_id = r.u16();
    const std::uint8_t rank = r.u8();
    const std::uint8_t reserved = r.u8();
    info.element_count = r.u64();
    if (rank > kFrameMaxRank) damaged("rank " + std::to_string(rank) + " exceeds 32");
    if (rank == 1) {
        info.shape = {info.element_count};
    } else {
        r.require(rank, 8, "frame shape");
        std::uint64_t product = 1;
        for (std::uint8_t d = 0; d < rank; ++d) {
            info.shape.push_back(r.u64());
            if (__builtin_mul_overflow(product, info.shape.back(), &product)) {
                damaged("shape product overflows 64 bits");
            }
        }
        if (product != info.element_count) {
            damaged("shape " + shape_to_string(info.shape) + " does not hold the declared " +
                    std::to_string(info.element_count) + " elements");
        }
    }
    const std::size_t covered = frame.size() - kFrameChecksumBytes;
    std::uint64_t stored = 0;
    for (int i = 7; i >= 0; --i)
        stored = (stored << 8) | frame[covered + static_cast<std::size_t>(i)];
    if (checksum(frame.first(covered)) != stored) damaged("checksum mismatch");
    // Checked after the checksum: on a flipped bit the checksum is the clearer message.
    if (flags & kMustUnderstandFlags) damaged("unknown required flags " + std::to_string(flags));
    if (reserved != 0) damaged("reserved byte 11 is not zero");
    for (const std::uint64_t d : info.shape) {
        if (d > kMaxDimension) {
            damaged("shape " + shape_to_string(info.shape) + " has a dimension above 2^63 - 1");
        }
    }
    const auto dtype = dtype_from_code(dtype_code);
    if (!dtype) damaged("unknown dtype code " + std::to_string(dtype_code));
    info.dtype = *dtype;
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(info.element_count, dtype_size(info.dtype), &bytes)) {
        damaged("element count " + std::to_string(info.element_count) + " overflows");
    }
    info.payload_offset = static_cast<std::size_t>(r.position());
    info.payload_size = static_cast<std::size_t>(r.remaining());
    return info;
}

}  // namespace gradcodec
