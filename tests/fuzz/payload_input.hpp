#pragma once
// The payload fuzzer's input: u16 codec id, u8 dtype code, u8 rank (0..4), rank x u16 dims
// (all little-endian), then the payload. Ids and codes are the format's own, so a seed stays
// meaningful as codecs are added. Inputs over the element cap are skipped.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "fuzz_limits.hpp"
#include "gradcodec/tensor.hpp"

namespace gcfuzz {

inline constexpr std::uint8_t kMaxFuzzRank = 4;

struct PayloadInput {
    std::uint16_t codec_id;
    gradcodec::TensorMeta meta;
    std::span<const std::uint8_t> payload;
};

inline std::optional<PayloadInput> parse_payload_input(std::span<const std::uint8_t> in) {
    if (in.size() < 4) return std::nullopt;
    const auto codec_id = static_cast<std::uint16_t>(in[0] | (in[1] << 8));
    const auto dtype = gradcodec::dtype_from_code(in[2]);
    const std::uint8_t rank = in[3];
    if (!dtype || rank > kMaxFuzzRank || in.size() < 4u + 2u * rank) return std::nullopt;
    std::vector<std::uint64_t> shape(rank);
    std::uint64_t elements = 1;
    for (std::size_t i = 0; i < rank; ++i) {
        shape[i] = static_cast<std::uint64_t>(in[4 + 2 * i] | (in[5 + 2 * i] << 8));
        elements *= shape[i];  // at most 65535^4 < 2^64
    }
    if (elements > kMaxElements) return std::nullopt;
    return PayloadInput{codec_id, {"fuzz", *dtype, shape}, in.subspan(4u + 2u * rank)};
}

// The inverse, for writing seeds from real records.
inline std::vector<std::uint8_t> payload_input_bytes(std::uint16_t codec_id, gradcodec::DType dtype,
                                                     const std::vector<std::uint64_t>& shape,
                                                     std::span<const std::uint8_t> payload) {
    std::vector<std::uint8_t> out{
        static_cast<std::uint8_t>(codec_id), static_cast<std::uint8_t>(codec_id >> 8),
        static_cast<std::uint8_t>(dtype), static_cast<std::uint8_t>(shape.size())};
    for (auto d : shape) {
        out.push_back(static_cast<std::uint8_t>(d));
        out.push_back(static_cast<std::uint8_t>(d >> 8));
    }
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

}  // namespace gcfuzz
