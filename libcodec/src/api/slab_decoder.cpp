// Slab-by-slab decoding of the sparse payload: its kept elements are read and checked once,
// then each slab is zeros with the kept values that fall in it.
#include "gradcodec/slab_decoder.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "codec/sparse_kept.hpp"
#include "common/scratch.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec {
namespace {

// decode_payload's checks, and the one codec that decodes in slabs.
void check_slab_codec(std::uint16_t codec_id, const TensorMeta& meta) {
    const CodecDef& codec = codec_by_id(codec_id, meta);
    if (!decodes_in_slabs(codec_id)) {
        fail(ErrorKind::usage, meta.name + ": codec '" + std::string(codec.name) +
                                   "' does not decode in slabs; use decode_tensor");
    }
    if (!is_float(meta.dtype)) {
        fail(ErrorKind::damaged_stream, meta.name + ": codec '" + std::string(codec.name) +
                                            "' recorded on a non-float tensor");
    }
}

}  // namespace

bool decodes_in_slabs(std::uint16_t codec_id) {
    return codec_id == kCodecSparse;
}

struct SlabDecoder::State {
    State(TensorMeta m, std::span<const std::uint8_t> payload)
        : meta(std::move(m)), n(meta.element_count()), kept(meta, payload) {}
    TensorMeta meta;
    std::uint64_t n;
    SparseKept kept;                       // refers to `meta`: State never moves
    std::vector<std::uint64_t> positions;  // ascending, checked; values in kept.values()
    std::size_t next_kept = 0;
    std::uint64_t position = 0;
};

std::uint64_t SlabDecoder::working_bytes(std::uint16_t codec_id, const TensorMeta& meta,
                                         std::span<const std::uint8_t> payload) {
    check_slab_codec(codec_id, meta);
    const SparseKeptSize size = sparse_kept_size(meta, payload);
    // Both sections at once while the values decode, then the values and their positions.
    // Saturating: a count near 2^64 is more memory than any cap allows, never a small sum.
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(size.count, std::uint64_t{12}, &bytes) ||
        __builtin_add_overflow(bytes, size.position_section, &bytes) ||
        __builtin_add_overflow(bytes, size.value_section, &bytes)) {
        return UINT64_MAX;
    }
    return bytes;
}

SlabDecoder::SlabDecoder(std::uint16_t codec_id, TensorMeta meta,
                         std::span<const std::uint8_t> payload) {
    check_slab_codec(codec_id, meta);
    state_ = std::make_unique<State>(std::move(meta), payload);
    State& s = *state_;
    s.positions.reserve(s.kept.count());
    // Values the tensor's dtype cannot hold are damage, found here rather than in a slab.
    const bool narrows = s.meta.dtype != DType::f32 && s.meta.dtype != DType::f64;
    ScratchVector<std::byte> stored;
    s.kept.visit([&](std::span<const std::uint64_t> piece, std::span<const float> values) {
        s.positions.insert(s.positions.end(), piece.begin(), piece.end());
        if (!narrows) return;
        stored.resize(values.size() * dtype_size(s.meta.dtype));
        store_decoded_float32(s.meta, values, stored);
    });
}

SlabDecoder::SlabDecoder(SlabDecoder&&) noexcept = default;
SlabDecoder& SlabDecoder::operator=(SlabDecoder&&) noexcept = default;
SlabDecoder::~SlabDecoder() = default;

std::uint64_t SlabDecoder::next(std::span<std::byte> out) {
    State& s = *state_;
    const std::size_t size = dtype_size(s.meta.dtype);
    const std::uint64_t count = out.size() / size;
    if (out.size() % size != 0 || count > s.n - s.position) {
        fail(ErrorKind::usage, s.meta.name + ": a slab of " + std::to_string(out.size()) +
                                   " bytes at element " + std::to_string(s.position) +
                                   " is not whole elements within the tensor's " +
                                   std::to_string(s.n));
    }
    const std::uint64_t first = s.position;
    const std::uint64_t end = first + count;
    const std::size_t first_kept = s.next_kept;
    const std::span<const float> values = s.kept.values();
    decode_float32(s.meta, out, [&](std::span<float> x) {
        std::fill(x.begin(), x.end(), 0.0f);
        std::size_t i = first_kept;
        for (; i < s.positions.size() && s.positions[i] < end; ++i)
            x[s.positions[i] - first] = values[i];
        s.next_kept = i;
    });
    s.position = end;
    return s.next_kept - first_kept;
}

std::uint64_t SlabDecoder::next_kept() const {
    const State& s = *state_;
    return s.next_kept < s.positions.size() ? s.positions[s.next_kept] : s.n;
}

void SlabDecoder::skip(std::uint64_t count) {
    State& s = *state_;
    if (count > s.n - s.position) {
        fail(ErrorKind::usage, s.meta.name + ": skipping " + std::to_string(count) +
                                   " elements at element " + std::to_string(s.position) +
                                   " runs past the tensor's " + std::to_string(s.n));
    }
    s.position += count;
    const auto kept = s.positions.begin() + static_cast<std::ptrdiff_t>(s.next_kept);
    s.next_kept = static_cast<std::size_t>(std::lower_bound(kept, s.positions.end(), s.position) -
                                           s.positions.begin());
}

std::uint64_t SlabDecoder::position() const {
    return state_->position;
}

std::uint64_t SlabDecoder::element_count() const {
    return state_->n;
}

}  // namespace gradcodec
