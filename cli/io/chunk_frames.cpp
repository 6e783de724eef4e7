#include "io/chunk_frames.hpp"

#include <algorithm>
#include <cstring>

#include "gradcodec/error.hpp"
#include "gradcodec/frame.hpp"

namespace gradcodec::cli {
namespace {

// The filter encodes every chunk as this flat tensor; the same metadata gives the same frame.
constexpr const char* kChunkName = "HDF5 chunk";

// The dimension the chunks cut: the last whose chunk is shorter than the dataset (the first
// when one chunk holds everything). Dimensions before it have chunks of 1.
std::size_t cut_dimension(const std::vector<std::uint64_t>& shape,
                          const std::vector<std::uint64_t>& chunk_dims) {
    std::size_t cut = 0;
    for (std::size_t d = 0; d < shape.size(); ++d)
        if (chunk_dims[d] < shape[d]) cut = d;
    for (std::size_t d = 0; d < cut; ++d)
        if (chunk_dims[d] != 1)
            fail(ErrorKind::usage, "chunks that cut two dimensions are not one run of values");
    return cut;
}

}  // namespace

std::vector<ChunkFrame> encode_chunk_frames(const Codec& codec, DType dtype,
                                            const std::vector<std::uint64_t>& shape,
                                            const std::vector<std::uint64_t>& chunk_dims,
                                            std::span<const std::byte> values,
                                            const std::string& where) {
    std::vector<ChunkFrame> frames;
    if (shape.empty() || std::find(shape.begin(), shape.end(), 0) != shape.end()) return frames;
    const std::size_t cut = cut_dimension(shape, chunk_dims);
    std::uint64_t outer = 1, inner = 1, chunk_elements = 1;
    for (std::size_t d = 0; d < cut; ++d) outer *= shape[d];
    for (std::size_t d = cut + 1; d < shape.size(); ++d) inner *= shape[d];
    for (const std::uint64_t c : chunk_dims) chunk_elements *= c;
    const std::size_t element = dtype_size(dtype);
    const TensorMeta meta{kChunkName, dtype, {chunk_elements}};
    std::vector<std::byte> padded;
    try {
        const std::uint64_t bound = max_frame_size(codec, meta);
        for (std::uint64_t o = 0; o < outer; ++o) {
            for (std::uint64_t row = 0; row < shape[cut]; row += chunk_dims[cut]) {
                const std::uint64_t rows = std::min(chunk_dims[cut], shape[cut] - row);
                const std::size_t first = static_cast<std::size_t>((o * shape[cut] + row) * inner);
                std::span<const std::byte> chunk = values.subspan(
                    first * element, static_cast<std::size_t>(rows * inner) * element);
                if (rows * inner < chunk_elements) {
                    padded.assign(static_cast<std::size_t>(chunk_elements) * element, std::byte{0});
                    std::memcpy(padded.data(), chunk.data(), chunk.size());
                    chunk = padded;
                }
                ChunkFrame out{std::vector<std::uint64_t>(shape.size(), 0), {}};
                for (std::size_t d = cut, rest = static_cast<std::size_t>(o); d-- > 0;) {
                    out.offset[d] = rest % shape[d];
                    rest /= static_cast<std::size_t>(shape[d]);
                }
                out.offset[cut] = row;
                out.frame.resize(static_cast<std::size_t>(bound));
                out.frame.resize(encode_frame_into(codec, meta, chunk, out.frame));
                frames.push_back(std::move(out));
            }
        }
    } catch (const Error& e) {
        fail(e.kind(), where + ": " + e.what());
    }
    return frames;
}

}  // namespace gradcodec::cli
