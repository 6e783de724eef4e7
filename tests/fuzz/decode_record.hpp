#pragma once
// What a consumer does with each tensor record: describe it (inspect) and decode it into a
// buffer of exactly the tensor's size (decode). Only gradcodec::Error may escape; anything
// else (a crash, std::bad_alloc, a sanitizer report) is a finding.
#include <cstddef>
#include <vector>

#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/stream.hpp"

namespace gcfuzz {

inline void describe_and_decode(std::uint16_t codec_id, const gradcodec::TensorMeta& meta,
                                std::span<const std::uint8_t> payload) {
    try {
        (void)gradcodec::describe_payload(codec_id, meta, payload);
    } catch (const gradcodec::Error&) {
    }
    try {
        std::vector<std::byte> out(meta.byte_count());
        gradcodec::decode_tensor(codec_id, meta, payload, out);
    } catch (const gradcodec::Error&) {
    }
}

}  // namespace gcfuzz
