#include "codec/sparse_payload.hpp"

#include "codec/zstd_section.hpp"
#include "common/byte_io.hpp"
#include "index/position_coder.hpp"
#include "quant/value_coder.hpp"

namespace gradcodec {
namespace {

constexpr int kZstdLevel = 3;

// Writes u64 length + the section, as a zstd frame when allowed and smaller.
bool write_section(ByteWriter& out, const std::vector<std::uint8_t>& raw, bool try_zstd) {
    if (try_zstd && raw.size() > 16) {
        const auto frame = zstd_compress_section(raw, kZstdLevel);
        if (frame.size() < raw.size()) {
            out.u64(frame.size());
            out.bytes(frame);
            return true;
        }
    }
    out.u64(raw.size());
    out.bytes(raw);
    return false;
}

}  // namespace

std::vector<std::uint8_t> write_sparse_payload(const SparseParams& p, const TensorMeta& meta,
                                               const SparseChoice& choice,
                                               std::span<const std::uint64_t> indices,
                                               std::span<const float> values, std::uint64_t n,
                                               const EncodeOptions& options) {
    std::vector<std::uint8_t> positions;
    ByteWriter pw(positions);
    encode_positions(indices, n, pw);
    std::vector<std::uint8_t> value_bytes;
    ByteWriter vw(value_bytes);
    encode_values(p.values, values, meta, options, vw);

    std::vector<std::uint8_t> out;
    ByteWriter w(out);
    w.u8(static_cast<std::uint8_t>(p.selector));
    w.u8(choice.dist);
    w.u8(choice.stages);
    const std::size_t flags_at = out.size();
    w.u8(0);
    w.f64(choice.target);
    w.f32(choice.threshold);
    w.u64(indices.size());
    std::uint8_t flags = 0;
    if (write_section(w, positions, p.zstd)) flags |= kSparseFlagPositionsZstd;
    if (write_section(w, value_bytes, p.zstd)) flags |= kSparseFlagValuesZstd;
    out[flags_at] = flags;
    return out;
}

}  // namespace gradcodec
