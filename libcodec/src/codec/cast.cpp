// cast: every value rounded to binary16 or bfloat16, nearest even.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "codec/piece_coding.hpp"
#include "common/byte_io.hpp"
#include "common/checked_size.hpp"
#include "common/float_values.hpp"
#include "common/huge_pages.hpp"
#include "common/parallel.hpp"
#include "common/small_float.hpp"
#include "common/spec_params.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec {
namespace {

SmallFloat parse_target(const CodecSpec& spec) {
    SpecParams p(spec);
    const std::string to = p.choice("to", "f16", {"f16", "bf16"});
    p.finish();
    return to == "f16" ? SmallFloat::f16 : SmallFloat::bf16;
}

DType dtype_of(SmallFloat t) {
    return t == SmallFloat::f16 ? DType::f16 : DType::bf16;
}

[[noreturn]] void fail_out_of_range(SmallFloat target, const TensorMeta& meta, std::size_t i,
                                    double x) {
    fail(ErrorKind::bad_input, meta.name + ": element " + std::to_string(i) + " = " +
                                   std::to_string(x) + " is outside the finite range of " +
                                   std::string(dtype_name(dtype_of(target))) +
                                   " (|x| <= " + std::to_string(small_float_max(target)) + ")");
}

// Values per piece of work: big enough to amortise a thread's start, small enough to balance.
constexpr std::size_t kPiece = std::size_t{1} << 16;

// The common case on the fast narrowing path. f32 data may be unaligned (a record inside a
// buffer); it is then copied through a small buffer.
void narrow_piece(SmallFloat target, const TensorMeta& meta, const std::byte* data,
                  std::size_t first, std::size_t count, std::uint8_t* out) {
    if (reinterpret_cast<std::uintptr_t>(data) % alignof(float) == 0) {
        const std::span<const float> values(reinterpret_cast<const float*>(data), count);
        const std::size_t bad = narrow_floats(target, values, out);
        if (bad != count) fail_out_of_range(target, meta, first + bad, values[bad]);
        return;
    }
    constexpr std::size_t kChunk = 4096;
    float buffer[kChunk];
    for (std::size_t done = 0; done < count; done += kChunk) {
        const std::size_t size = std::min(kChunk, count - done);
        std::memcpy(buffer, data + 4 * done, 4 * size);
        const std::span<const float> piece(buffer, size);
        const std::size_t bad = narrow_floats(target, piece, out + 2 * done);
        if (bad != size) fail_out_of_range(target, meta, first + done + bad, piece[bad]);
    }
}

// Elements [first, first + count) of the tensor, `data` holding just those, as u16 codes.
void encode_from_f32(SmallFloat target, const TensorMeta& meta, std::uint64_t first,
                     std::span<const std::byte> data, std::uint8_t* out) {
    parallel_pieces(data.size() / 4, kPiece, [&](std::size_t at, std::size_t count) {
        narrow_piece(target, meta, data.data() + 4 * at, static_cast<std::size_t>(first) + at,
                     count, out + 2 * at);
    });
}

void encode_elements(SmallFloat target, const TensorMeta& meta, std::uint64_t first,
                     std::span<const std::byte> data, std::uint8_t* out) {
    if (meta.dtype == DType::f32) {
        encode_from_f32(target, meta, first, data, out);
        return;
    }
    // Cast from the tensor's own precision, so f64 input is rounded once, not twice.
    const std::size_t n = data.size() / dtype_size(meta.dtype);
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = static_cast<std::size_t>(first) + k;
        const double x = float_element(meta.dtype, data, k);
        const auto bits = narrow_to(target, x);
        if (!bits) fail_out_of_range(target, meta, i, x);
        if (meta.dtype == DType::f16 && !narrow_to(SmallFloat::f16, widen_from(target, *bits))) {
            fail(ErrorKind::bad_input, meta.name + ": element " + std::to_string(i) +
                                           " rounds to a bf16 value outside the f16 range of "
                                           "the tensor, so it could not be decoded");
        }
        out[2 * k] = static_cast<std::uint8_t>(*bits);
        out[2 * k + 1] = static_cast<std::uint8_t>(*bits >> 8);
    }
}

// The payload is the target's code, then each element's code in order: any run of elements
// encodes on its own (codec/piece_coding.hpp).
void write_piece(SmallFloat target, const TensorMeta& meta, std::uint64_t first,
                 std::span<const std::byte> data, ByteOutput& sink) {
    const std::size_t count = data.size() / dtype_size(meta.dtype);
    std::uint8_t* out = sink.extend((first == 0 ? 1 : 0) + 2 * count);
    if (first == 0) *out++ = static_cast<std::uint8_t>(dtype_of(target));
    encode_elements(target, meta, first, data, out);
}

void encode_piece(const std::any& compiled, const TensorMeta& meta, std::uint64_t first,
                  std::span<const std::byte> data, const std::any*, ByteOutput& sink) {
    write_piece(std::any_cast<SmallFloat>(compiled), meta, first, data, sink);
}

void encode(const SmallFloat& target, const TensorMeta& meta, std::span<const std::byte> data,
            const EncodeOptions&, ByteOutput& sink) {
    write_piece(target, meta, 0, data, sink);
}

std::uint64_t cast_payload_size(const TensorMeta& meta) {
    return size_add(1, size_mul(2, meta.element_count()));
}

std::uint64_t payload_size(const std::any&, const TensorMeta& meta, const std::any*) {
    return cast_payload_size(meta);
}

void decode(const TensorMeta& meta, std::span<const std::uint8_t> payload,
            std::span<std::byte> out) {
    ByteReader r(payload, meta.name, "cast payload");
    const std::uint8_t code = r.u8();
    if (code != static_cast<std::uint8_t>(DType::f16) &&
        code != static_cast<std::uint8_t>(DType::bf16)) {
        r.damaged("unknown cast target type " + std::to_string(code));
    }
    const SmallFloat target =
        code == static_cast<std::uint8_t>(DType::f16) ? SmallFloat::f16 : SmallFloat::bf16;
    const std::size_t n = out.size() / dtype_size(meta.dtype);
    const auto halves = r.bytes(2 * std::uint64_t{n});
    r.expect_end();
    decode_float32(meta, out, [&](std::span<float> values) {
        parallel_pieces(n, kPiece, [&](std::size_t first, std::size_t count) {
            widen_halves(target, halves.data() + 2 * first, values.subspan(first, count));
        });
    });
}

PayloadStats describe(const TensorMeta& meta, std::span<const std::uint8_t>) {
    PayloadStats s;
    s.has_bit_split = true;
    s.value_bits = 16 * meta.element_count();
    return s;
}

std::uint64_t payload_bound(const SmallFloat&, const TensorMeta& meta, const EncodeOptions&) {
    return cast_payload_size(meta);
}

}  // namespace

const CodecDef kCastCodec = codec_row<parse_target, encode, payload_bound>({
    .name = "cast",
    .id = kCodecCast,
    .payload = "cast",
    .summary = "round every value to to=f16|bf16 (nearest even)",
    .defaults = "to=f16",
    .filter_ok = true,
    .knob = {KnobKind::type, "to", {}, true},
    .pieces = &kCastPieces,
    .decode = decode,
    .describe = describe,
});

const PieceCoding kCastPieces{nullptr, nullptr, payload_size, encode_piece, 1};

}  // namespace gradcodec
