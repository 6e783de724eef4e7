#include "codec/frequency_codec.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "codec/spec_params.hpp"
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

PayloadStats describe_frequency_payload(
    const TensorMeta& meta, std::span<const std::uint8_t> payload, const char* what,
    const std::function<std::uint64_t(const ChunkLayout&)>& coefficients) {
    ByteReader r(payload, meta.name + ": " + what + " payload");
    const FrequencyHeader h = read_frequency_header(r);
    const PositionSectionInfo positions =
        describe_positions(r, coefficients(ChunkLayout(meta.element_count(), h.chunk)));
    PayloadStats s;
    s.has_bit_split = true;
    s.position_bits = 8 * kFrequencyHeaderBytes + positions.bits;
    s.value_bits = 8 * r.remaining();
    s.target_density = h.density;
    return s;
}

}  // namespace gradcodec
