#include "codec/frequency_codec.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "common/checked_size.hpp"
#include "common/magnitude_max.hpp"
#include "common/scratch.hpp"
#include "common/spec_params.hpp"
#include "gradcodec/error.hpp"
#include "index/position_coder.hpp"
#include "select/topk.hpp"

namespace gradcodec {

FrequencyParams parse_frequency_params(const CodecSpec& spec, std::uint32_t default_chunk) {
    SpecParams p(spec);
    FrequencyParams out;
    out.density = p.number("density", out.density, 0.0, 1.0);
    if (out.density <= 0.0) p.invalid("density", "a number in (0, 1]");
    out.chunk = static_cast<std::uint32_t>(p.integer("chunk", default_chunk, 1, kMaxChunk));
    const std::string select = p.choice("select", "topk", {"topk", "sidco", "dgc"});
    out.selector = select == "topk"    ? FrequencySelector::topk
                   : select == "sidco" ? FrequencySelector::sidco
                                       : FrequencySelector::dgc;
    out.values = parse_value_coder(p, ValueFormat::rangeq, kPaperValueBits);
    p.finish();
    return out;
}

void write_frequency_header(ByteWriter& out, const FrequencyHeader& header) {
    out.u8(0);
    out.u32(header.chunk);
    out.f64(header.density);
}

FrequencyHeader read_frequency_header(ByteReader& in) {
    const std::uint8_t flags = in.u8();
    if (flags != 0) in.damaged("unknown flags " + std::to_string(flags) + " (expected 0)");
    FrequencyHeader h;
    h.chunk = in.u32();
    if (h.chunk == 0 || h.chunk > kMaxChunk) {
        in.damaged("chunk " + std::to_string(h.chunk) + " is outside 1.." +
                   std::to_string(kMaxChunk));
    }
    h.density = in.f64();
    return h;
}

std::uint64_t kept_scalar_target(double density, std::uint64_t n) {
    return topk_count(n, density);
}

namespace {

// Decoding stores the reconstruction in the tensor's dtype and refuses a value that overflows
// it (binary32 itself overflows to infinity), so the encoder makes sure none does. A chunk of
// length m rebuilds from its exact spectrum to at most ||y||_2 <= sqrt(m)·max|x| (fft, by
// Parseval) or sqrt(2m)·max|x| (dct, sum of s_k·|Z_k| by Cauchy-Schwarz); quantizing a value
// at most doubles it. Only when that bound comes near the dtype's largest value is the payload
// decoded to check.
void check_reconstruction_fits(const TensorMeta& meta, std::span<const float> x, float largest,
                               std::uint32_t chunk, std::span<const std::uint8_t> payload,
                               std::string_view transform) {
    const float limit = dtype_value_limit(meta.dtype);
    const double bound = 2.02 * std::sqrt(2.0 * chunk) * static_cast<double>(largest);
    if (bound < static_cast<double>(limit)) return;
    const auto overflow = [&](const std::string& detail) {
        fail(ErrorKind::bad_input,
             meta.name + ": the " + std::string(transform) + " reconstruction overflows " +
                 std::string(dtype_name(meta.dtype)) + " (" + detail +
                 "); values this close to the dtype's largest need a lossless or cast codec");
    };
    ScratchVector<std::byte> decoded(meta.byte_count());
    try {
        decode_payload(transform == "FFT" ? kCodecFft : kCodecDct, meta, payload, decoded);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::damaged_stream) throw;
        overflow(e.what());
    }
    if (meta.dtype != DType::f32) return;  // f16 and bf16 refuse above; f64 holds binary32
    for (std::size_t i = 0; i < x.size(); ++i) {
        float y;
        std::memcpy(&y, decoded.data() + 4 * i, 4);
        if (std::isinf(y)) overflow("element " + std::to_string(i) + " decodes to infinity");
    }
}

}  // namespace

float largest_magnitude(std::span<const float> x) {
    return std::bit_cast<float>(largest_magnitude_bits(x));
}

void write_frequency_payload(const FrequencyParams& params, const TensorMeta& meta,
                             std::span<const float> x, std::span<const std::uint64_t> kept,
                             std::uint64_t coefficient_count, std::span<const float> values,
                             const EncodeOptions& options, const char* transform, ByteOutput& out) {
    write_frequency_payload(params, meta, x, largest_magnitude(x), kept, coefficient_count, values,
                            options, transform, out);
}

void write_frequency_payload(const FrequencyParams& params, const TensorMeta& meta,
                             std::span<const float> x, float largest_of_x,
                             std::span<const std::uint64_t> kept, std::uint64_t coefficient_count,
                             std::span<const float> values, const EncodeOptions& options,
                             const char* transform, ByteOutput& out) {
    // A pattern at or above infinity's: some coefficient is not finite.
    if (largest_magnitude_bits(values) >= 0x7f800000u) {
        require_finite(meta, x);
        fail(ErrorKind::bad_input,
             meta.name + ": the " + transform +
                 " of this tensor overflows binary32 (values too large for chunks of " +
                 std::to_string(params.chunk) + ")");
    }
    const std::size_t start = out.size();
    ByteWriter w(out);
    write_frequency_header(w, {params.chunk, params.density});
    encode_positions(kept, coefficient_count, w);
    encode_values(params.values, values, meta, options, w);
    check_reconstruction_fits(meta, x, largest_of_x, params.chunk,
                              std::span(out.data() + start, out.size() - start), transform);
}

std::uint64_t frequency_payload_bound(const FrequencyParams& params, std::uint64_t coefficients,
                                      std::uint64_t scalars, const EncodeOptions& options) {
    return size_add(kFrequencyHeaderBytes, position_section_bound(coefficients),
                    value_section_bound(params.values, scalars, options.allow_nonfinite));
}

PayloadStats describe_frequency_payload(
    const TensorMeta& meta, std::span<const std::uint8_t> payload, const char* what,
    const std::function<std::uint64_t(const ChunkLayout&)>& coefficients,
    const std::function<std::uint64_t(const ChunkLayout&, std::span<const std::uint64_t>)>&
        scalars) {
    ByteReader r(payload, meta.name + ": " + what + " payload");
    const FrequencyHeader h = read_frequency_header(r);
    const ChunkLayout layout(meta.element_count(), h.chunk);
    ByteReader kept_reader = r;
    const std::vector<std::uint64_t> kept = decode_positions(kept_reader, coefficients(layout));
    const PositionSectionInfo positions = describe_positions(r, coefficients(layout));
    PayloadStats s;
    s.has_bit_split = true;
    s.position_bits = 8 * kFrequencyHeaderBytes + positions.bits;
    s.value_bits = 8 * r.remaining();
    s.target_density = h.density;
    s.has_carried = true;
    s.carried = scalars(layout, kept);
    return s;
}

}  // namespace gradcodec
