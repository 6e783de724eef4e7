// Frames around codec payloads: format/frame_layout.cpp owns the bytes around the payload,
// this file puts a Codec's payload between them and decodes it back.
#include <cstring>
#include <string>

#include "codec/residual.hpp"
#include "common/checked_size.hpp"
#include "format/frame_layout.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/frame.hpp"

namespace gradcodec {
namespace {

FrameInfo frame_info_for(const Codec& codec, const TensorMeta& meta) {
    FrameInfo info;
    info.codec_id = codec.id();
    info.dtype = meta.dtype;
    info.element_count = meta.element_count();
    info.shape = meta.shape;
    if (info.shape.size() > kFrameMaxRank) {
        fail(ErrorKind::usage, meta.name + ": rank " + std::to_string(info.shape.size()) +
                                   " exceeds the frame's limit of 32");
    }
    return info;
}

}  // namespace

std::uint64_t max_frame_size(const Codec& codec, const TensorMeta& meta) {
    return size_add(frame_header_size(meta.shape.size()), codec.max_encoded_size(meta),
                    kFrameChecksumBytes);
}

std::size_t encode_frame_into(const Codec& codec, const TensorMeta& meta,
                              std::span<const std::byte> values, std::span<std::uint8_t> out,
                              std::span<std::byte> residual) {
    // An empty residual is none wanted; a wrong-sized one fails in write_feedback.
    return encode_frame_into(codec, meta, values, out, Feedback{residual, {}});
}

std::size_t encode_frame_into(const Codec& codec, const TensorMeta& meta,
                              std::span<const std::byte> values, std::span<std::uint8_t> out,
                              const Feedback& feedback) {
    const FrameInfo info = frame_info_for(codec, meta);
    // The whole buffer, header and checksum included: Codec::encode_into sees only the payload's.
    check_separate_buffers(meta, values, out, feedback);
    const std::size_t header = frame_header_size(info.shape.size());
    if (out.size() < header + kFrameChecksumBytes) {
        fail(ErrorKind::limit, meta.name + ": a frame needs at least " +
                                   std::to_string(header + kFrameChecksumBytes) +
                                   " bytes, the buffer holds " + std::to_string(out.size()));
    }
    const std::span<std::uint8_t> payload_room =
        out.subspan(header, out.size() - header - kFrameChecksumBytes);
    const std::size_t payload = codec.encode_into(meta, values, payload_room, feedback);
    write_frame_header(info, out);
    const std::size_t size = header + payload + kFrameChecksumBytes;
    seal_frame(out.first(size));
    return size;
}

std::vector<std::uint8_t> encode_frame(const Codec& codec, const TensorMeta& meta,
                                       std::span<const std::byte> values,
                                       std::span<std::byte> residual) {
    const FrameInfo info = frame_info_for(codec, meta);
    check_separate_buffers(meta, values, {}, Feedback{residual, {}});
    const std::vector<std::uint8_t> payload = codec.encode(meta, values);
    const std::size_t header = frame_header_size(info.shape.size());
    std::vector<std::uint8_t> frame(header + payload.size() + kFrameChecksumBytes);
    write_frame_header(info, frame);
    if (!payload.empty()) std::memcpy(frame.data() + header, payload.data(), payload.size());
    seal_frame(frame);
    if (!residual.empty()) write_residual(codec.id(), meta, values, payload, residual);
    return frame;
}

FrameInfo read_frame_info(std::span<const std::uint8_t> frame) {
    return parse_frame(frame);
}

void decode_frame_into(std::span<const std::uint8_t> frame, std::span<std::byte> out) {
    const FrameInfo info = parse_frame(frame);
    const TensorMeta meta{"frame", info.dtype, info.shape};
    if (out.size() != meta.byte_count()) {
        fail(ErrorKind::usage, "frame: output buffer of " + std::to_string(out.size()) +
                                   " bytes, the frame holds " + std::to_string(meta.byte_count()) +
                                   " (" + std::to_string(info.element_count) + " " +
                                   std::string(dtype_name(info.dtype)) + ")");
    }
    decode_tensor(info.codec_id, meta, frame.subspan(info.payload_offset, info.payload_size), out);
}

}  // namespace gradcodec
