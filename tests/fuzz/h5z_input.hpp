#pragma once
// fuzz_frame's HDF5 filter inputs: one chunk and the filter parameters (cd_values) HDF5 hands
// gradcodec's filter with it, and the chunked dataset they belong to.
//   "\x89H5Z", u8 mode, u8 type, u8 rank (1-3), rank x u16 chunk dims, u8 cd count,
//   cd count x u32 cd_values (little-endian), then the chunk's bytes.
// The dataset is one chunk of those dims, of kChunkTypes[type % size].
// A frame starts "\x89GCF", so the two kinds of input never meet.
#include <hdf5.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "gradcodec/dtype.hpp"

namespace gcfuzz {

inline constexpr std::array<std::uint8_t, 4> kH5zMagic{0x89, 'H', '5', 'Z'};

// Mode bits.
// The chunk is a stored frame: the filter decodes it (H5Z_FLAG_REVERSE). Otherwise the chunk
// holds values: the filter encodes them, then decodes the frame it wrote.
inline constexpr std::uint8_t kH5zReverse = 1;
// The dataset keeps the cd_values exactly as given: it is created while a stand-in class with
// no callbacks holds the filter's ID. Otherwise can_apply and set_local run on them.
inline constexpr std::uint8_t kH5zVerbatim = 2;
// HDF5's pipeline runs the chunk too: H5Dwrite then H5Dread (encode), H5Dwrite_chunk of the
// stored frame then H5Dread (reverse).
inline constexpr std::uint8_t kH5zThroughHdf5 = 4;

struct ChunkType {
    std::optional<gradcodec::DType> dtype;  // nullopt: a type the filter refuses
    hid_t (*make)();                        // a new type the caller closes
};

inline hid_t float16_type(bool brain) {
    const hid_t t = H5Tcopy(H5T_IEEE_F32LE);
    H5Tset_fields(t, 15, brain ? 7 : 10, brain ? 8 : 5, 0, brain ? 7 : 10);
    H5Tset_size(t, 2);
    H5Tset_ebias(t, brain ? 127 : 15);
    return t;
}

// Every type the filter takes, and two it refuses (big-endian).
inline const std::array<ChunkType, 14>& chunk_types() {
    using gradcodec::DType;
    static const std::array<ChunkType, 14> types{{
        {DType::f32, [] { return H5Tcopy(H5T_IEEE_F32LE); }},
        {DType::f16, [] { return float16_type(false); }},
        {DType::bf16, [] { return float16_type(true); }},
        {DType::f64, [] { return H5Tcopy(H5T_IEEE_F64LE); }},
        {DType::i8, [] { return H5Tcopy(H5T_STD_I8LE); }},
        {DType::i16, [] { return H5Tcopy(H5T_STD_I16LE); }},
        {DType::i32, [] { return H5Tcopy(H5T_STD_I32LE); }},
        {DType::i64, [] { return H5Tcopy(H5T_STD_I64LE); }},
        {DType::u8, [] { return H5Tcopy(H5T_STD_U8LE); }},
        {DType::u16, [] { return H5Tcopy(H5T_STD_U16LE); }},
        {DType::u32, [] { return H5Tcopy(H5T_STD_U32LE); }},
        {DType::u64, [] { return H5Tcopy(H5T_STD_U64LE); }},
        {std::nullopt, [] { return H5Tcopy(H5T_IEEE_F32BE); }},
        {std::nullopt, [] { return H5Tcopy(H5T_STD_I16BE); }},
    }};
    return types;
}

// The index of `dtype` in chunk_types(); nullopt for a dtype no HDF5 type there gives.
inline std::optional<std::uint8_t> chunk_type_index(gradcodec::DType dtype) {
    const auto& types = chunk_types();
    for (std::size_t i = 0; i < types.size(); ++i)
        if (types[i].dtype == dtype) return static_cast<std::uint8_t>(i);
    return std::nullopt;
}

struct H5zInput {
    std::uint8_t mode = 0;
    std::uint8_t type = 0;
    std::vector<std::uint64_t> chunk_dims;  // rank 1-3
    std::vector<unsigned> cd;               // at most 255
    std::span<const std::uint8_t> chunk;
};

inline std::optional<H5zInput> parse_h5z_input(std::span<const std::uint8_t> in) {
    std::size_t at = kH5zMagic.size();
    if (in.size() < at + 3 || std::memcmp(in.data(), kH5zMagic.data(), at) != 0)
        return std::nullopt;
    H5zInput out;
    out.mode = in[at++];
    out.type = static_cast<std::uint8_t>(in[at++] % chunk_types().size());
    const std::size_t rank = 1 + in[at++] % 3;
    if (in.size() < at + 2 * rank + 1) return std::nullopt;
    for (std::size_t d = 0; d < rank; ++d, at += 2)
        out.chunk_dims.push_back(std::uint64_t{in[at]} | std::uint64_t{in[at + 1]} << 8);
    const std::size_t count = in[at++];
    if (in.size() < at + 4 * count) return std::nullopt;
    for (std::size_t i = 0; i < count; ++i, at += 4) {
        out.cd.push_back(unsigned{in[at]} | unsigned{in[at + 1]} << 8 | unsigned{in[at + 2]} << 16 |
                         unsigned{in[at + 3]} << 24);
    }
    out.chunk = in.subspan(at);
    return out;
}

// The bytes parse_h5z_input reads back as `input` (dims below 2^16, at most 255 cd_values).
inline std::vector<std::uint8_t> h5z_input_bytes(const H5zInput& input) {
    std::vector<std::uint8_t> out(kH5zMagic.begin(), kH5zMagic.end());
    out.push_back(input.mode);
    out.push_back(input.type);
    out.push_back(static_cast<std::uint8_t>(input.chunk_dims.size() - 1));
    for (const std::uint64_t d : input.chunk_dims) {
        out.push_back(static_cast<std::uint8_t>(d & 0xFF));
        out.push_back(static_cast<std::uint8_t>((d >> 8) & 0xFF));
    }
    out.push_back(static_cast<std::uint8_t>(input.cd.size()));
    for (const unsigned v : input.cd)
        for (int b = 0; b < 4; ++b) out.push_back(static_cast<std::uint8_t>((v >> (8 * b)) & 0xFF));
    out.insert(out.end(), input.chunk.begin(), input.chunk.end());
    return out;
}

}  // namespace gcfuzz
