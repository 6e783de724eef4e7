#include "codec/fft_candidates.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>

#include "common/parallel.hpp"
#include "select/selection.hpp"
#include "select/weighted_prefix.hpp"
#include "transform/aligned_array.hpp"
#include "transform/fft_backend.hpp"

namespace gradcodec {
namespace {

// Below this many full chunks the sample would cost a large share of the transform, and the
// whole spectrum fits in cache anyway.
constexpr std::uint64_t kFromChunks = 1024;
constexpr std::uint64_t kSampleChunks = 64;
constexpr unsigned kTopShift = 20;  // the floor is set on the top 11 bits of a pattern
constexpr std::size_t kTopBuckets = std::size_t{1} << 11;
constexpr std::uint64_t kBlockValues = std::uint64_t{1} << 14;
// Blocks per turn of a thread when threads share the transform: 2^18 values at most.
constexpr std::uint64_t kPieceBlocks = 16;

std::uint64_t chunks_per_block(const ChunkLayout& c) {
    return std::max<std::uint64_t>(1, kBlockValues / c.chunk);
}

struct Floor {
    std::uint32_t bits;
    std::uint64_t cap;  // more candidates than this: the floor is judged too low
};

// Transforms kSampleChunks evenly spaced chunks and sets the floor where their weight, scaled
// to the tensor, reaches a sixth more than `target`.
bool sampled_floor(const SpectrumLayout& s, const float* x, std::uint64_t target, Floor& floor) {
    const ChunkLayout& c = s.chunks;
    const FftBackend& fft = default_fft_backend();
    AlignedArray<std::complex<float>> spectrum(s.stride);
    AlignedArray<float> scores(s.bins);
    std::array<std::uint64_t, kTopBuckets> weights{}, counts{};
    for (std::uint64_t j = 0; j < kSampleChunks; ++j) {
        const std::uint64_t chunk = j * (c.full - 1) / (kSampleChunks - 1);
        fft.forward_r2c({c.chunk, 1, c.chunk, s.stride}, x + chunk * c.chunk, spectrum.data());
        score_chunk(spectrum.data(), s.bins, 1.0f, scores.data());
        for (std::uint64_t k = 0; k < s.bins; ++k) {
            const std::uint32_t digit = magnitude_bits(scores[k]) >> kTopShift;
            weights[digit] += k == 0 || 2 * k == c.chunk ? 1 : 2;
            counts[digit] += 1;
        }
    }
    const double sampled_bins = static_cast<double>(kSampleChunks * s.bins);
    const double scale = static_cast<double>(s.bin_count()) / sampled_bins;
    const double need = 1.16 * static_cast<double>(target) / scale + 64.0;
    std::uint64_t weight = 0, count = 0;
    for (std::size_t b = kTopBuckets; b-- > 0;) {
        weight += weights[b];
        count += counts[b];
        if (static_cast<double>(weight) >= need) {
            const auto expected = static_cast<std::uint64_t>(static_cast<double>(count) * scale);
            floor = {static_cast<std::uint32_t>(b) << kTopShift, 2 * expected + 4096};
            return true;
        }
    }
    return false;
}

// The bins at or above the floor, ascending, with their patterns and values.
struct Candidates {
    Candidates() = default;
    explicit Candidates(std::size_t capacity)
        : bins(scratch_array_for_overwrite<std::uint64_t>(capacity)),
          bits(scratch_array_for_overwrite<std::uint32_t>(capacity)),
          values(scratch_array_for_overwrite<std::uint64_t>(capacity)) {}
    ScratchArray<std::uint64_t> bins;  // kRealBin set on real bins
    ScratchArray<std::uint32_t> bits;
    ScratchArray<std::uint64_t> values;  // each bin's Re and Im, as stored in the spectrum
    std::size_t size = 0;
    ScratchVector<std::uint32_t> single_bits;  // of the real bins among them
};

// Adds the candidates of `count` chunks of `len` values whose spectra are given, the first
// chunk's first bin being `first_bin`; null `scores` stand for the squared magnitudes.
void add_candidates(const std::complex<float>* spectrum, std::uint64_t stride, const float* scores,
                    std::uint64_t bins, std::uint64_t count, std::uint64_t len,
                    std::uint64_t first_bin, std::uint32_t floor, Candidates& out) {
    static const VectorPath path = widest_vector_path();
    for (std::uint64_t c = 0; c < count; ++c) {
        const std::size_t start = out.size;
        const std::uint64_t first = first_bin + c * bins;
        out.size = append_candidates(
            path,
            {scores != nullptr ? scores + c * bins : nullptr, spectrum + c * stride, bins, first},
            floor, {out.bins.get(), out.bits.get(), out.values.get()}, out.size);
        // The real bins are the chunk's first and, for an even length, its last: when kept,
        // the first and last candidates of the chunk.
        if (out.size == start) continue;
        if (out.bins[start] == first) {
            out.single_bits.push_back(out.bits[start]);
            out.bins[start] |= kRealBin;
        }
        if (len % 2 == 0 && (out.bins[out.size - 1] & ~kRealBin) == first + len / 2) {
            out.single_bits.push_back(out.bits[out.size - 1]);
            out.bins[out.size - 1] |= kRealBin;
        }
    }
}

// Transforms the full chunks [first, first + count), a block at a time, adds their candidates
// to `out` and raises `top` to their largest magnitude pattern. False as soon as
// `within_cap(out.size)` says the candidates are too many.
template <class WithinCap>
bool collect_chunks(const SpectrumLayout& s, const float* x, std::uint32_t floor_bits,
                    std::uint64_t first, std::uint64_t count, WithinCap&& within_cap,
                    Candidates& out, std::uint32_t& top) {
    const ChunkLayout& c = s.chunks;
    const FftBackend& fft = default_fft_backend();
    const std::uint64_t per_block = chunks_per_block(c);
    AlignedArray<std::complex<float>> spectrum(per_block * s.stride);
    const std::uint64_t end = first + count;
    for (std::uint64_t block = first; block < end; block += per_block) {
        if (!within_cap(out.size)) return false;
        const std::uint64_t chunks = std::min(per_block, end - block);
        const float* values = x + block * c.chunk;
        // First: the scan streams the block in (prefetchers follow it well), so the
        // transform then reads it from cache; the other order cost ~0.5 ms more at 16 MiB.
        top = std::max(top, std::bit_cast<std::uint32_t>(
                                largest_magnitude(std::span(values, chunks * c.chunk))));
        fft.forward_r2c({c.chunk, chunks, c.chunk, s.stride}, values, spectrum.data());
        add_candidates(spectrum.data(), s.stride, nullptr, s.bins, chunks, c.chunk, block * s.bins,
                       floor_bits, out);
    }
    return within_cap(out.size);
}

// Candidates [from_at, from_at + n) of `from` to `to` at `to_at`; sizes are the caller's.
void copy_candidates(const Candidates& from, std::size_t from_at, std::size_t n, Candidates& to,
                     std::size_t to_at) {
    std::copy_n(from.bins.get() + from_at, n, to.bins.get() + to_at);
    std::copy_n(from.bits.get() + from_at, n, to.bits.get() + to_at);
    std::copy_n(from.values.get() + from_at, n, to.values.get() + to_at);
}

// collect_chunks over every full chunk on several threads, a piece of blocks per turn. Each
// block's candidates are collected apart, then copied to `staged` at a place reserved for
// them; at the end they are joined into `out` in block order, so the candidates are those of
// one thread. The reservations stop at the cap, as one thread stops.
bool collect_chunks_in_pieces(const SpectrumLayout& s, const float* x, const Floor& floor,
                              Candidates& out, std::uint32_t& top) {
    struct Placed {
        std::size_t at = 0;
        std::size_t size = 0;
        std::uint32_t top = 0;
    };
    const ChunkLayout& c = s.chunks;
    const std::uint64_t per_block = chunks_per_block(c);
    ScratchVector<Placed> placed(piece_count(c.full, per_block));
    Candidates staged(floor.cap);
    std::atomic<std::size_t> used{0};
    std::atomic<bool> over_cap{false};
    const auto no_cap = [](std::size_t) { return true; };
    parallel_pieces(placed.size(), kPieceBlocks, [&](std::size_t first, std::size_t count) {
        Candidates block(per_block * s.bins + kCompactSlack);
        for (std::size_t b = first; b < first + count && !over_cap.load(); ++b) {
            block.size = 0;
            Placed& p = placed[b];
            const std::uint64_t chunk = b * per_block;
            collect_chunks(s, x, floor.bits, chunk, std::min(per_block, c.full - chunk), no_cap,
                           block, p.top);
            p.at = used.fetch_add(block.size);
            p.size = block.size;
            if (p.at + p.size > floor.cap) {
                over_cap = true;
                return;
            }
            copy_candidates(block, 0, p.size, staged, p.at);
        }
    });
    if (over_cap.load()) return false;
    for (const Placed& p : placed) {
        copy_candidates(staged, p.at, p.size, out, out.size);
        out.size += p.size;
        top = std::max(top, p.top);
    }
    // The real bins among them, as add_candidates lists them on one thread.
    for (std::size_t i = 0; i < out.size; ++i) {
        if ((out.bins[i] & kRealBin) != 0) out.single_bits.push_back(out.bits[i]);
    }
    return true;
}

// Transforms every chunk and keeps the candidates, on codec_threads() threads; false as soon
// as they outnumber the floor's cap.
bool transform_and_collect(const SpectrumLayout& s, const float* x, const Floor& floor,
                           Candidates& out, float& largest) {
    const ChunkLayout& c = s.chunks;
    std::uint32_t top = 0;
    if (codec_threads() > 1 && c.full > kPieceBlocks * chunks_per_block(c)) {
        if (!collect_chunks_in_pieces(s, x, floor, out, top)) return false;
    } else {
        const auto within_cap = [&](std::size_t size) { return size <= floor.cap; };
        if (!collect_chunks(s, x, floor.bits, 0, c.full, within_cap, out, top)) return false;
    }
    if (c.tail != 0) {
        // The tail's scores are scaled by chunk/tail, as on the whole-spectrum path.
        const FftBackend& fft = default_fft_backend();
        AlignedArray<std::complex<float>> spectrum(s.tail_bins);
        AlignedArray<float> scores(s.tail_bins);
        const float* tail = x + c.full * c.chunk;
        fft.forward_r2c({c.tail, 1, c.tail, s.tail_bins}, tail, spectrum.data());
        score_chunk(spectrum.data(), s.tail_bins, s.tail_score_scale(), scores.data());
        top =
            std::max(top, std::bit_cast<std::uint32_t>(largest_magnitude(std::span(tail, c.tail))));
        add_candidates(spectrum.data(), s.tail_bins, scores.data(), s.tail_bins, 1, c.tail,
                       c.full * s.bins, floor.bits, out);
    }
    largest = std::bit_cast<float>(top);
    return true;
}

// The candidates above the cut, and at it while weight is still owed, in bin order, with
// their values.
void keep(const Candidates& c, const WeightCut& cut, FftSelection& out) {
    static const VectorPath path = widest_vector_path();
    out.kept = scratch_array_for_overwrite<std::uint64_t>(c.size + kCompactSlack);
    out.values = scratch_array_for_overwrite<float>(2 * c.size + kCompactSlack);
    KeptArrays kept{out.kept.get(), out.values.get()};
    keep_candidates(path, {c.bins.get(), c.bits.get(), c.values.get(), c.size}, cut.bits, cut.ties,
                    kept);
    out.kept_count = kept.bin_count;
    out.value_count = kept.value_count;
}

}  // namespace

bool select_while_transforming(const SpectrumLayout& s, std::span<const float> x,
                               std::uint64_t target, FftSelection& out) {
    const ChunkLayout& c = s.chunks;
    if (c.full < kFromChunks || target == 0) return false;
    Floor floor{};
    if (!sampled_floor(s, x.data(), target, floor)) return false;
    // Room for the cap, one more block, which may overshoot it before the check, and what the
    // vector compaction writes past its end.
    const std::uint64_t per_block = chunks_per_block(c);
    Candidates candidates(static_cast<std::size_t>(
        std::min(s.bin_count(), floor.cap + per_block * s.bins + s.tail_bins) + kCompactSlack));
    candidates.single_bits.reserve(2 * (c.full + 1));
    if (!transform_and_collect(s, x.data(), floor, candidates, out.largest)) return false;
    const std::uint64_t weight = 2 * std::uint64_t{candidates.size} - candidates.single_bits.size();
    if (weight < target) return false;
    const WeightCut cut = weighted_cut(std::span(candidates.bits.get(), candidates.size),
                                       candidates.single_bits, target);
    keep(candidates, cut, out);
    return true;
}

}  // namespace gradcodec
