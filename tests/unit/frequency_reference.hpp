#pragma once
// The exact-arithmetic decode of an fft or dct payload (format-spec/codec-fft.md and
// codec-dct.md, "Conformance"), computed in double precision, and the error bound a decoder
// must meet against it. Shared by the conformance test and the tool that writes the
// reference outputs shipped beside the golden streams.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <span>
#include <vector>

#include "codec/codec_def.hpp"
#include "codec/frequency_codec.hpp"
#include "common/byte_io.hpp"
#include "index/position_coder.hpp"
#include "quant/value_coder.hpp"

namespace gradcodec::testing {

struct FrequencyReference {
    std::vector<double> values;         // the exact decoded value of every element
    std::vector<double> scale;          // S_c of the element's chunk: no output of it exceeds S_c
    std::vector<unsigned> log2_length;  // ceil(log2 m) of the element's chunk
};

namespace detail {

struct Kept {
    std::uint64_t index;  // bin (fft) or coefficient (dct) within its chunk
    double re;
    double im;
};

inline unsigned ceil_log2(std::uint64_t m) {
    unsigned l = 0;
    while ((std::uint64_t{1} << l) < m) ++l;
    return l;
}

// One chunk of length m starting at `first`, from its kept bins or coefficients.
inline void rebuild_chunk(bool fft, std::uint64_t first, std::uint64_t m,
                          const std::vector<Kept>& kept, FrequencyReference& out) {
    const double pi = std::numbers::pi;
    double scale = 0;
    for (const Kept& k : kept) {
        if (fft) {
            const bool real = k.index == 0 || (m % 2 == 0 && k.index == m / 2);
            scale += (real ? std::fabs(k.re) : 2 * (std::fabs(k.re) + std::fabs(k.im))) /
                     static_cast<double>(m);
        } else {
            const double s = std::sqrt((k.index == 0 ? 1.0 : 2.0) / static_cast<double>(m));
            scale += s * std::fabs(k.re);
        }
    }
    for (std::uint64_t j = 0; j < m; ++j) {
        double y = 0;
        for (const Kept& k : kept) {
            if (fft) {
                // Exact argument reduction: the angle is 2π·((j·k) mod m)/m.
                const double angle =
                    2 * pi * static_cast<double>((j * k.index) % m) / static_cast<double>(m);
                const bool real = k.index == 0 || (m % 2 == 0 && k.index == m / 2);
                const double term = k.re * std::cos(angle) - (real ? 0.0 : k.im * std::sin(angle));
                y += (real ? 1.0 : 2.0) * term / static_cast<double>(m);
            } else {
                const std::uint64_t turns = ((2 * j + 1) * k.index) % (4 * m);
                const double angle =
                    pi * static_cast<double>(turns) / (2.0 * static_cast<double>(m));
                const double s = std::sqrt((k.index == 0 ? 1.0 : 2.0) / static_cast<double>(m));
                y += s * k.re * std::cos(angle);
            }
        }
        out.values[first + j] = y;
        out.scale[first + j] = scale;
        out.log2_length[first + j] = ceil_log2(m);
    }
}

}  // namespace detail

// `codec_id` kCodecFft or kCodecDct; n the tensor's element count.
inline FrequencyReference frequency_reference(std::uint16_t codec_id, std::uint64_t n,
                                              std::span<const std::uint8_t> payload) {
    const bool fft = codec_id == kCodecFft;
    ByteReader r(payload, "reference");
    const FrequencyHeader h = read_frequency_header(r);
    const ChunkLayout layout(n, h.chunk);
    const auto per_chunk = [&](std::uint64_t m) { return fft ? m / 2 + 1 : m; };
    const std::uint64_t full_size = per_chunk(layout.chunk);
    const std::uint64_t count =
        layout.full * full_size + (layout.tail != 0 ? per_chunk(layout.tail) : 0);
    const std::vector<std::uint64_t> kept = decode_positions(r, count);
    const auto length_of = [&](std::uint64_t g) {
        return g / full_size < layout.full ? layout.chunk : layout.tail;
    };
    std::uint64_t scalars = 0;
    for (const std::uint64_t g : kept) {
        const std::uint64_t k = g % full_size, m = length_of(g);
        scalars += !fft || k == 0 || (m % 2 == 0 && k == m / 2) ? 1 : 2;
    }
    std::vector<float> values(scalars);
    decode_values(r, values);

    FrequencyReference out{std::vector<double>(n), std::vector<double>(n),
                           std::vector<unsigned>(n)};
    std::size_t next_kept = 0, next_value = 0;
    const std::uint64_t chunks = layout.full + (layout.tail != 0 ? 1 : 0);
    for (std::uint64_t c = 0; c < chunks; ++c) {
        const std::uint64_t m = c < layout.full ? layout.chunk : layout.tail;
        std::vector<detail::Kept> in_chunk;
        while (next_kept < kept.size() && kept[next_kept] / full_size == c) {
            const std::uint64_t k = kept[next_kept++] % full_size;
            const bool two = fft && !(k == 0 || (m % 2 == 0 && k == m / 2));
            const double re = values[next_value++];
            const double im = two ? values[next_value++] : 0.0;
            in_chunk.push_back({k, re, im});
        }
        detail::rebuild_chunk(fft, c * layout.chunk, m, in_chunk, out);
    }
    return out;
}

// Binary32 arithmetic allowed to a decoder on a chunk of length m: (ceil(log2 m) + 2) units
// of 2^-23 of the chunk's scale S_c.
inline double arithmetic_allowance(const FrequencyReference& ref, std::size_t i) {
    return (ref.log2_length[i] + 2.0) * std::ldexp(ref.scale[i], -23);
}

// The spacing of binary32 values at magnitude v (the subnormal spacing below 2^-126).
inline double binary32_ulp(double v) {
    const double a = std::fabs(v);
    if (a < std::ldexp(1.0, -126)) return std::ldexp(1.0, -149);
    int e = 0;
    std::frexp(a, &e);  // a = f·2^e, f in [0.5, 1)
    return std::ldexp(1.0, e - 24);
}

}  // namespace gradcodec::testing
