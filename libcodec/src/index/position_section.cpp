// The position section: header (coder, k, parameter, data length) and the choice of coder.
#include <cmath>
#include <string>
#include <utility>

#include "common/log_gamma.hpp"
#include "common/scratch.hpp"
#include "index/position_coder.hpp"
#include "index/position_coders.hpp"

namespace gradcodec {
namespace {

// Strictly increasing with the last below n puts every position below n. The scan has no
// branch per position; only a failed one looks for the culprit.
void check_sorted(std::span<const std::uint64_t> sorted, std::uint64_t n) {
    bool bad = !sorted.empty() && sorted.back() >= n;
    for (std::size_t i = 1; i < sorted.size(); ++i) bad |= sorted[i] <= sorted[i - 1];
    if (!bad) return;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        if (sorted[i] >= n || (i > 0 && sorted[i] <= sorted[i - 1])) {
            fail(ErrorKind::usage, "encode_positions: position " + std::to_string(sorted[i]) +
                                       " at " + std::to_string(i) +
                                       " is not strictly increasing below " + std::to_string(n));
        }
    }
}

struct Header {
    PositionCoder coder;
    std::uint64_t k;
    unsigned parameter;
    std::uint64_t length;
};

// Reads and checks the header against n and the bytes that remain, before anything is decoded.
Header read_header(ByteReader& in, std::uint64_t n) {
    Header h{};
    const std::uint8_t coder = in.u8();
    if (coder < 1 || coder > 4) in.damaged("unknown position coder " + std::to_string(coder));
    h.coder = static_cast<PositionCoder>(coder);
    h.k = in.u64();
    if (h.k > n) {
        in.damaged("position count " + std::to_string(h.k) + " exceeds the element count " +
                   std::to_string(n));
    }
    h.parameter = in.u8();
    h.length = in.u64();
    in.require(h.length, 1, "position data");
    switch (h.coder) {
        case PositionCoder::bitmap:
            if (h.parameter != 0) in.damaged("bitmap parameter must be 0");
            if (h.length != bitmap_data_bytes(n)) {
                in.damaged("bitmap of " + std::to_string(h.length) + " bytes, " +
                           std::to_string(n) + " elements need " +
                           std::to_string(bitmap_data_bytes(n)));
            }
            break;
        case PositionCoder::rice_gaps:
            if (h.parameter > 63)
                in.damaged("Rice parameter " + std::to_string(h.parameter) + " > 63");
            // Every code spends at least r + 1 bits.
            if (h.k > 0 && h.k > (8 * h.length) / (h.parameter + 1)) {
                in.damaged(std::to_string(h.k) + " Rice codes cannot fit in " +
                           std::to_string(h.length) + " bytes");
            }
            break;
        case PositionCoder::rice_blocks: {
            if (h.parameter < kRiceBlockLog2Min || h.parameter > kRiceBlockLog2ReadMax) {
                in.damaged("Rice block size 2^" + std::to_string(h.parameter) +
                           " outside 2^5..2^16");
            }
            // Every code spends at least one bit, every block six more.
            const std::uint64_t blocks =
                (h.k >> h.parameter) + ((h.k & ((1ull << h.parameter) - 1)) != 0);
            if (h.k > 8 * h.length || blocks * kRiceBlockParameterBits > 8 * h.length - h.k) {
                in.damaged(std::to_string(h.k) + " blocked Rice codes cannot fit in " +
                           std::to_string(h.length) + " bytes");
            }
            break;
        }
        case PositionCoder::elias_fano: {
            if (h.parameter > 63)
                in.damaged("Elias-Fano low bits " + std::to_string(h.parameter) + " > 63");
            if (h.k > 0 && h.parameter > 0 && h.k > (~0ull / 2) / h.parameter) {
                in.damaged("Elias-Fano size overflows");
            }
            const std::uint64_t bits = elias_fano_data_bits(n, h.k, h.parameter);
            if (h.length != bytes_for_bits(bits)) {
                in.damaged("Elias-Fano data of " + std::to_string(h.length) + " bytes, expected " +
                           std::to_string(bytes_for_bits(bits)));
            }
            break;
        }
    }
    return h;
}

ScratchVector<std::uint8_t> encode_data(PositionCoder coder, const PositionCosts& c,
                                        std::span<const std::uint64_t> sorted, std::uint64_t n) {
    switch (coder) {
        case PositionCoder::bitmap:
            return encode_bitmap(sorted, n);
        case PositionCoder::rice_gaps:
            return encode_rice(sorted, c.rice_parameter, c.rice_gaps);
        case PositionCoder::elias_fano:
            return encode_elias_fano(sorted, n, c.elias_fano_low_bits);
        case PositionCoder::rice_blocks:
            return encode_rice_blocks(sorted, c.rice_block_log2, c.rice_block_parameters,
                                      c.rice_blocks);
    }
    return {};
}

}  // namespace

PositionCosts position_costs(std::span<const std::uint64_t> sorted, std::uint64_t n) {
    PositionCosts c;
    const std::uint64_t k = sorted.size();
    c.bitmap = bitmap_data_bytes(n);
    RiceCosts rice = rice_costs(sorted);
    c.rice_parameter = rice.parameter;
    c.rice_gaps = bytes_for_bits(rice.bits);
    c.elias_fano_low_bits = best_elias_fano_low_bits(n, k);
    c.elias_fano = bytes_for_bits(elias_fano_data_bits(n, k, c.elias_fano_low_bits));
    c.rice_block_log2 = rice.block_log2;
    c.rice_block_parameters = std::move(rice.block_parameters);
    c.rice_blocks = bytes_for_bits(rice.block_bits);
    c.best = PositionCoder::bitmap;
    std::uint64_t best = c.bitmap;
    if (c.rice_gaps < best) {
        c.best = PositionCoder::rice_gaps;
        best = c.rice_gaps;
    }
    // Elias-Fano is never chosen: Golomb-Rice with r = l spends k·(l+1) + sum(g_i >> l) bits,
    // and sum(g_i >> l) <= (sum g_i) >> l <= (n-1) >> l, so it never exceeds Elias-Fano's
    // k·l + ((n-1) >> l) + k, and ties go to the lower id. Decoders still read coder 3.
    if (c.rice_blocks < best) c.best = PositionCoder::rice_blocks;
    return c;
}

namespace {

void write_section(PositionCoder coder, const PositionCosts& c,
                   std::span<const std::uint64_t> sorted, std::uint64_t n, ByteWriter& out) {
    const ScratchVector<std::uint8_t> data = encode_data(coder, c, sorted, n);
    out.u8(static_cast<std::uint8_t>(coder));
    out.u64(sorted.size());
    unsigned parameter = 0;
    if (coder == PositionCoder::rice_gaps) parameter = c.rice_parameter;
    if (coder == PositionCoder::elias_fano) parameter = c.elias_fano_low_bits;
    if (coder == PositionCoder::rice_blocks) parameter = c.rice_block_log2;
    out.u8(static_cast<std::uint8_t>(parameter));
    out.u64(data.size());
    out.bytes(data);
}

}  // namespace

void encode_positions_with(PositionCoder coder, std::span<const std::uint64_t> sorted,
                           std::uint64_t n, ByteWriter& out) {
    check_sorted(sorted, n);
    write_section(coder, position_costs(sorted, n), sorted, n, out);
}

void encode_positions(std::span<const std::uint64_t> sorted, std::uint64_t n, ByteWriter& out) {
    check_sorted(sorted, n);
    const PositionCosts c = position_costs(sorted, n);
    write_section(c.best, c, sorted, n, out);
}

std::uint64_t decode_position_pieces(ByteReader& in, std::uint64_t n, const PositionSink& sink) {
    const Header h = read_header(in, n);
    const auto data = in.bytes(h.length);
    BitReader bits(data, "position section");
    PositionEmitter out(n, sink, bits);
    switch (h.coder) {
        case PositionCoder::bitmap:
            decode_bitmap(bits, n, h.k, out);
            break;
        case PositionCoder::rice_gaps:
            decode_rice(bits, n, h.k, h.parameter, out);
            break;
        case PositionCoder::elias_fano:
            decode_elias_fano(bits, n, h.k, h.parameter, out);
            break;
        case PositionCoder::rice_blocks:
            decode_rice_blocks(bits, n, h.k, h.parameter, out);
            break;
    }
    out.flush();
    // Canonical: no whole spare byte, and zero padding bits.
    if (bytes_for_bits(bits.position()) != h.length || !bits.rest_is_zero()) {
        bits.damaged("position data has trailing or non-zero padding bits");
    }
    return h.k;
}

std::vector<std::uint64_t> decode_positions(ByteReader& in, std::uint64_t n) {
    std::vector<std::uint64_t> out;
    decode_positions(in, n, [&](std::span<const std::uint64_t> piece) {
        out.insert(out.end(), piece.begin(), piece.end());
    });
    return out;
}

void decode_positions_into(ByteReader& in, std::uint64_t n, ScratchVector<std::uint64_t>& out) {
    out.clear();
    decode_positions(in, n, [&](std::span<const std::uint64_t> piece) {
        out.insert(out.end(), piece.begin(), piece.end());
    });
}

PositionSectionInfo describe_positions(ByteReader& in, std::uint64_t n) {
    const Header h = read_header(in, n);
    in.bytes(h.length);
    return {h.coder, h.k, h.parameter, 8 * (kPositionHeaderBytes + h.length)};
}

double log2_binomial(std::uint64_t n, std::uint64_t k) {
    if (k == 0 || k >= n) return 0.0;
    const double nn = static_cast<double>(n), kk = static_cast<double>(k);
    return (log_gamma(nn + 1) - log_gamma(kk + 1) - log_gamma(nn - kk + 1)) / std::log(2.0);
}

}  // namespace gradcodec
