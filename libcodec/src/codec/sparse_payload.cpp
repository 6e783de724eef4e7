#include "codec/sparse_payload.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "codec/zstd_section.hpp"
#include "common/byte_io.hpp"
#include "common/scratch.hpp"
#include "index/position_coder.hpp"
#include "quant/value_coder.hpp"

namespace gradcodec {
namespace {

constexpr int kZstdLevel = 3;

// Writes u64 length + the section, as a zstd frame when allowed and smaller.
bool write_section(ByteWriter& out, const ScratchVector<std::uint8_t>& raw, bool try_zstd) {
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

ScratchVector<std::uint8_t> value_section(const SparseParams& p, const TensorMeta& meta,
                                          std::span<const float> values,
                                          const EncodeOptions& options) {
    const auto coded = [&](const ValueCoderParams& coder) {
        ScratchVector<std::uint8_t> bytes;
        ByteWriter w(bytes);
        encode_values(coder, values, meta, options, w, dtype_value_limit(meta.dtype));
        return bytes;
    };
    ScratchVector<std::uint8_t> bytes = coded(p.values);
    if (bytes.size() <= sparse_value_limit(values.size())) return bytes;
    // Only a rangeq section with many exceptions grows past the limit; f32 values never do.
    ValueCoderParams exact;
    exact.format = ValueFormat::f32;
    return coded(exact);
}

void check_section_limit(const TensorMeta& meta, const char* what, std::uint64_t size,
                         std::uint64_t limit) {
    if (size <= limit) return;
    // The encoders above make this unreachable; a stream past it would be refused on decode.
    fail(ErrorKind::bad_input, meta.name + ": the sparse " + what + " would take " +
                                   std::to_string(size) + " bytes, more than the " +
                                   std::to_string(limit) + " that decoders accept");
}

}  // namespace

std::uint64_t sparse_position_limit(std::uint64_t n) {
    return kPositionHeaderBytes + n / 8 + (n % 8 != 0);
}

std::uint64_t sparse_value_limit(std::uint64_t count) {
    return 4 * count + kSparseValueSlack;
}

float recorded_threshold(float threshold) {
    return std::isnan(threshold) ? std::numeric_limits<float>::infinity() : threshold;
}

void write_sparse_payload(const SparseParams& p, const TensorMeta& meta, const SparseChoice& choice,
                          std::span<const std::uint64_t> indices, std::span<const float> values,
                          std::uint64_t n, const EncodeOptions& options, ByteOutput& out) {
    ScratchVector<std::uint8_t> positions;
    ByteWriter pw(positions);
    encode_positions(indices, n, pw);
    check_section_limit(meta, "position section", positions.size(), sparse_position_limit(n));
    const ScratchVector<std::uint8_t> value_bytes = value_section(p, meta, values, options);
    check_section_limit(meta, "value section", value_bytes.size(),
                        sparse_value_limit(indices.size()));

    ByteWriter w(out);
    w.u8(static_cast<std::uint8_t>(p.selector));
    w.u8(choice.dist);
    w.u8(choice.stages);
    const std::size_t flags_at = out.size();
    w.u8(0);
    w.f64(choice.target);
    w.f32(recorded_threshold(choice.threshold));
    w.u64(indices.size());
    std::uint8_t flags = 0;
    if (write_section(w, positions, p.zstd)) flags |= kSparseFlagPositionsZstd;
    if (write_section(w, value_bytes, p.zstd)) flags |= kSparseFlagValuesZstd;
    out.data()[flags_at] = flags;
}

}  // namespace gradcodec
