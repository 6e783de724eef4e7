#include "codec/symbol_section.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "codec/zstd_section.hpp"
#include "common/bit_pack.hpp"
#include "gradcodec/error.hpp"
#include "index/bit_stream.hpp"

namespace gradcodec {
namespace {

int fixed_width(std::uint32_t alphabet) {
    return std::max(1, static_cast<int>(std::bit_width(alphabet - 1)));
}

// Elias gamma of v >= 1, least significant bit first: N = floor(log2 v) zeros, a one, then
// the N bits of v below its leading one.
unsigned gamma_bits(std::uint64_t v) {
    return 2 * static_cast<unsigned>(std::bit_width(v)) - 1;
}

ScratchVector<std::uint8_t> fixed_width_body(std::span<const std::uint32_t> symbols, int width) {
    ScratchVector<std::uint8_t> body(packed_byte_count(symbols.size(), width));
    pack_bits(symbols, width, body.data());
    return body;
}

ScratchVector<std::uint8_t> gamma_body(std::span<const std::uint32_t> symbols) {
    BitWriter w;
    for (const std::uint32_t s : symbols) {
        const std::uint64_t v = std::uint64_t{s} + 1;
        const auto n = static_cast<unsigned>(std::bit_width(v)) - 1;
        w.put(std::uint64_t{1} << n, n + 1);
        w.put(v - (std::uint64_t{1} << n), n);
    }
    return w.finish();
}

ScratchVector<std::uint8_t> base3_body(std::span<const std::uint32_t> symbols) {
    ScratchVector<std::uint8_t> body((symbols.size() + 4) / 5);
    for (std::size_t b = 0; b < body.size(); ++b) {
        unsigned byte = 0;
        for (std::size_t d = std::min<std::size_t>(5, symbols.size() - 5 * b); d-- > 0;)
            byte = 3 * byte + symbols[5 * b + d];
        body[b] = static_cast<std::uint8_t>(byte);
    }
    return body;
}

void decode_fixed_width(std::span<const std::uint8_t> body, int width, ByteReader& in,
                        std::span<std::uint32_t> out) {
    if (body.size() != packed_byte_count(out.size(), width))
        in.damaged("fixed-width symbols of the wrong length");
    unpack_bits(body.data(), width, out);
    if (!padding_is_zero(body, out.size(), width)) in.damaged("non-zero padding bits");
}

void decode_gamma(std::span<const std::uint8_t> body, std::string_view what,
                  std::span<std::uint32_t> out) {
    BitReader r(body, what);
    for (std::uint32_t& s : out) {
        const std::uint64_t n = r.unary(31);
        const std::uint64_t v = (std::uint64_t{1} << n) | r.get(static_cast<unsigned>(n));
        s = static_cast<std::uint32_t>(v - 1);
    }
    if (r.remaining() >= 8 || !r.rest_is_zero()) r.damaged("bits after the last gamma code");
}

void decode_base3(std::span<const std::uint8_t> body, ByteReader& in,
                  std::span<std::uint32_t> out) {
    if (body.size() != (out.size() + 4) / 5) in.damaged("base-3 symbols of the wrong length");
    for (std::size_t b = 0; b < body.size(); ++b) {
        unsigned byte = body[b];
        const std::size_t digits = std::min<std::size_t>(5, out.size() - 5 * b);
        for (std::size_t d = 0; d < digits; ++d, byte /= 3) out[5 * b + d] = byte % 3;
        if (byte != 0) in.damaged("a base-3 byte above its digits");
    }
}

}  // namespace

void encode_symbols(std::span<const std::uint32_t> symbols, std::uint32_t alphabet,
                    ByteWriter& out) {
    const int width = fixed_width(alphabet);
    std::uint64_t gamma_total = 0;
    for (const std::uint32_t s : symbols) gamma_total += gamma_bits(std::uint64_t{s} + 1);
    SymbolCoding coding = SymbolCoding::fixed_width;
    std::uint64_t best = packed_byte_count(symbols.size(), width);
    if ((gamma_total + 7) / 8 < best) {
        coding = SymbolCoding::gamma;
        best = (gamma_total + 7) / 8;
    }
    if (alphabet <= 3 && (symbols.size() + 4) / 5 < best) coding = SymbolCoding::base3;
    const ScratchVector<std::uint8_t> body = coding == SymbolCoding::fixed_width
                                                 ? fixed_width_body(symbols, width)
                                             : coding == SymbolCoding::gamma ? gamma_body(symbols)
                                                                             : base3_body(symbols);
    const ScratchVector<std::uint8_t> packed = zstd_compress_section(body, 3);
    const bool zstd = !packed.empty() && packed.size() < body.size();
    out.u8(static_cast<std::uint8_t>(static_cast<std::uint8_t>(coding) |
                                     (zstd ? kSymbolZstdFlag : 0)));
    const auto& kept = zstd ? packed : body;
    out.u64(kept.size());
    out.bytes(kept);
}

void decode_symbols(ByteReader& in, std::uint32_t alphabet, std::span<std::uint32_t> out) {
    const std::uint8_t mode = in.u8();
    const auto coding = static_cast<SymbolCoding>(mode & ~kSymbolZstdFlag);
    if ((mode & ~kSymbolZstdFlag) > 2) in.damaged("unknown symbol coding " + std::to_string(mode));
    if (coding == SymbolCoding::base3 && alphabet > 3)
        in.damaged("base-3 symbols for an alphabet of " + std::to_string(alphabet));
    const std::uint64_t length = in.u64();
    const std::span<const std::uint8_t> stored = in.bytes(length);
    // The largest body any coding writes for these symbols: gamma at 63 bits per symbol.
    const std::uint64_t most = (63 * std::uint64_t{out.size()} + 7) / 8 + 8;
    ScratchVector<std::uint8_t> unpacked;
    std::span<const std::uint8_t> body = stored;
    if (mode & kSymbolZstdFlag) {
        unpacked = zstd_decompress_section(stored, most, in);
        body = unpacked;
    }
    switch (coding) {
        case SymbolCoding::fixed_width:
            decode_fixed_width(body, fixed_width(alphabet), in, out);
            break;
        case SymbolCoding::gamma:
            decode_gamma(body, "symbol section", out);
            break;
        case SymbolCoding::base3:
            decode_base3(body, in, out);
            break;
    }
    for (const std::uint32_t s : out)
        if (s >= alphabet)
            in.damaged("a symbol outside the alphabet of " + std::to_string(alphabet));
}

std::uint64_t symbol_section_bits(ByteReader& in) {
    const std::uint64_t start = in.position();
    if (((in.u8() & ~kSymbolZstdFlag)) > 2) in.damaged("unknown symbol coding");
    in.bytes(in.u64());
    return 8 * (in.position() - start);
}

std::uint64_t symbol_section_bound(std::uint64_t count, std::uint32_t alphabet) {
    return 9 + packed_byte_count(count, fixed_width(alphabet));
}

}  // namespace gradcodec
