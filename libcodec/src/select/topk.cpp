#include "select/topk.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "common/parallel.hpp"
#include "common/scratch.hpp"
#include "select/magnitude_scan.hpp"

namespace gradcodec {
namespace {

constexpr std::size_t kBuckets = 1u << 16;

inline std::uint32_t pattern(const float* p) {
    std::uint32_t b;
    std::memcpy(&b, p, 4);
    return b & 0x7fffffffu;
}

// Histogram of the top 16 bits. Two interleaved tables halve the store-to-load stalls of runs
// of equal buckets, which gradients (few exponents) have plenty of.
ScratchVector<std::uint64_t> high_histogram_serial(std::span<const float> x) {
    ScratchVector<std::uint64_t> total(kBuckets / 2, 0);  // the sign bit is cleared
    ScratchVector<std::uint32_t> h0(kBuckets / 2), h1(kBuckets / 2);
    const std::size_t n = x.size();
    constexpr std::size_t kPiece = std::size_t{1} << 31;  // keeps 32-bit counters exact
    for (std::size_t first = 0; first < n; first += kPiece) {
        const std::size_t end = std::min(n, first + kPiece);
        std::fill(h0.begin(), h0.end(), 0u);
        std::fill(h1.begin(), h1.end(), 0u);
        std::size_t i = first;
        for (; i + 2 <= end; i += 2) {
            ++h0[pattern(&x[i]) >> 16];
            ++h1[pattern(&x[i + 1]) >> 16];
        }
        if (i < end) ++h0[pattern(&x[i]) >> 16];
        for (std::size_t b = 0; b < kBuckets / 2; ++b) total[b] += std::uint64_t{h0[b]} + h1[b];
    }
    return total;
}

// Elements per piece when a scan is shared among threads; piece results merge in order.
constexpr std::size_t kScanPiece = std::size_t{1} << 20;

// One piece per thread (the counts are exact integers, so any split sums to the same
// histogram); one pass with no piece tables at all on one thread.
ScratchVector<std::uint64_t> high_histogram(std::span<const float> x) {
    const unsigned threads = codec_threads();
    if (threads <= 1) return high_histogram_serial(x);
    const std::size_t piece = std::max(kScanPiece, (x.size() + threads - 1) / threads);
    ScratchVector<ScratchVector<std::uint64_t>> parts(piece_count(x.size(), piece));
    parallel_pieces(x.size(), piece, [&](std::size_t first, std::size_t size) {
        parts[first / piece] = high_histogram_serial(x.subspan(first, size));
    });
    ScratchVector<std::uint64_t> total(kBuckets / 2, 0);
    for (const auto& part : parts) {
        for (std::size_t b = 0; b < total.size(); ++b) total[b] += part[b];
    }
    return total;
}

struct Bucket {
    std::uint32_t index;  // the bucket holding the k-th largest
    std::uint64_t above;  // elements in higher buckets (< k)
};

// Scans from the top bucket down until `k` elements are covered.
Bucket find_bucket(std::span<const std::uint64_t> hist, std::uint64_t k) {
    std::uint64_t above = 0;
    for (std::size_t b = hist.size(); b-- > 0;) {
        if (above + hist[b] >= k) return {static_cast<std::uint32_t>(b), above};
        above += hist[b];
    }
    return {0, above};  // unreachable for k <= n
}

// The cut inside bucket `high`, from the low 16 bits of its members.
TopkCut cut_in_bucket(std::span<const std::uint64_t> low_hist, std::uint32_t high,
                      std::uint64_t need) {
    const Bucket b = find_bucket(low_hist, need);
    return {(high << 16) | b.index, need - b.above};
}

// The elements whose magnitude pattern is >= lo (there are `count`), ascending, and their
// values. Branch-free through small buffers when they are dense, where a branch per element
// would mispredict constantly.
void collect_candidates_serial(std::span<const float> x, std::uint32_t lo, std::uint64_t count,
                               ScratchVector<std::uint64_t>& indices,
                               ScratchVector<float>& values) {
    if (count < x.size() / 64) {
        collect_counted_at_least(x, lo, count, indices);
        values.resize(indices.size());
        for (std::size_t j = 0; j < indices.size(); ++j) values[j] = x[indices[j]];
        return;
    }
    indices.reserve(count);
    values.reserve(count);
    constexpr std::size_t kChunk = 2048;
    std::uint64_t index_buffer[kChunk];
    float value_buffer[kChunk];
    for (std::size_t first = 0; first < x.size() && indices.size() < count; first += kChunk) {
        const std::size_t end = std::min(x.size(), first + kChunk);
        std::size_t fill = 0;
        for (std::size_t i = first; i < end; ++i) {
            index_buffer[fill] = i;
            value_buffer[fill] = x[i];
            fill += pattern(&x[i]) >= lo ? 1 : 0;
        }
        const auto keep = static_cast<std::size_t>(
            std::min<std::uint64_t>(fill, count - indices.size()));  // never past `count`
        indices.insert(indices.end(), index_buffer, index_buffer + keep);
        values.insert(values.end(), value_buffer, value_buffer + keep);
    }
}

// The same list built piece by piece on several threads, then joined in index order.
void collect_candidates(std::span<const float> x, std::uint32_t lo, std::uint64_t count,
                        ScratchVector<std::uint64_t>& indices, ScratchVector<float>& values) {
    const std::size_t pieces = piece_count(x.size(), kScanPiece);
    if (codec_threads() <= 1 || pieces <= 1) {
        collect_candidates_serial(x, lo, count, indices, values);
        return;
    }
    ScratchVector<ScratchVector<std::uint64_t>> piece_indices(pieces);
    ScratchVector<ScratchVector<float>> piece_values(pieces);
    parallel_pieces(x.size(), kScanPiece, [&](std::size_t first, std::size_t size) {
        const std::size_t p = first / kScanPiece;
        const auto piece = x.subspan(first, size);
        collect_candidates_serial(piece, lo, count_at_least(piece, lo), piece_indices[p],
                                  piece_values[p]);
        for (auto& i : piece_indices[p]) i += first;
    });
    indices.reserve(count);
    values.reserve(count);
    for (std::size_t p = 0; p < pieces && indices.size() < count; ++p) {
        const auto keep = static_cast<std::size_t>(std::min<std::uint64_t>(
            piece_indices[p].size(), count - indices.size()));  // never past `count`
        indices.insert(indices.end(), piece_indices[p].begin(),
                       piece_indices[p].begin() + static_cast<std::ptrdiff_t>(keep));
        values.insert(values.end(), piece_values[p].begin(),
                      piece_values[p].begin() + static_cast<std::ptrdiff_t>(keep));
    }
}

// Keeps, in index order, the candidates above the cut and the first `ties` at it.
void keep_above_cut(Selection& s, const TopkCut& cut) {
    std::uint64_t ties = cut.ties;
    std::size_t out = 0;
    for (std::size_t j = 0; j < s.values.size(); ++j) {
        const std::uint32_t b = magnitude_bits(s.values[j]);
        const bool keep = b > cut.bits || (b == cut.bits && ties > 0);
        if (b == cut.bits && ties > 0) --ties;
        s.indices[out] = s.indices[j];
        s.values[out] = s.values[j];
        out += keep ? 1 : 0;
    }
    s.indices.resize(out);
    s.values.resize(out);
}

// A small k is first sought below a floor read from a sample: evenly spaced slices of
// contiguous values (slices, not single values, so that few cache lines are read). A tensor
// under 16 full samples takes shorter slices, down to kMinSliceValues: the 16-bit histograms
// the exact path zeroes and scans cost more than a small tensor's own values.
constexpr std::size_t kSampleSlices = 64;
// Up to this many elements, an exact select on the magnitudes replaces the histograms.
constexpr std::size_t kSmallTensor = std::size_t{1} << 14;
constexpr std::size_t kSliceValues = 1024;
constexpr std::size_t kMinSliceValues = 16;

struct SampledFloor {
    std::uint32_t bits;  // a magnitude pattern about `expected` elements reach
    std::uint64_t expected;
};

// The floor that about 2k elements reach, from the sample: the sample's rank that maps to 2k
// (at least 32, so that the estimate is not noise). None when the tensor is too small for a
// sample to pay, or k too large for the floor to spare much of the tensor.
std::optional<SampledFloor> sampled_floor(std::span<const float> x, std::uint64_t k) {
    const std::size_t n = x.size();
    const std::size_t slice_values = std::min(kSliceValues, n / (16 * kSampleSlices));
    if (slice_values < kMinSliceValues || k > n / 64) return std::nullopt;
    const std::size_t sample_size = kSampleSlices * slice_values;
    ScratchVector<std::uint32_t> sample;
    sample.reserve(sample_size);
    for (std::size_t slice = 0; slice < kSampleSlices; ++slice) {
        const std::size_t first = slice * (n - slice_values) / (kSampleSlices - 1);
        for (std::size_t i = first; i < first + slice_values; ++i) sample.push_back(pattern(&x[i]));
    }
    const std::uint64_t rank =
        std::max<std::uint64_t>(32, (2 * k * sample_size + n - 1) / n);  // 1-based
    if (rank > sample_size) return std::nullopt;
    // The rank is a small fraction of the sample (2k/n of it): a heap of the `rank` largest,
    // which most patterns only compare against, costs a fraction of a full partition.
    const auto end = sample.begin() + static_cast<std::ptrdiff_t>(rank);
    std::partial_sort(sample.begin(), end, sample.end(), std::greater<>());
    return SampledFloor{*(end - 1), rank * n / sample_size};
}

// collect_at_least on several threads, with its result: one pass per piece, each collecting
// its matches as it counts them, joined in index order up to the cap. A piece that starts
// once the finished pieces (all before it) hold more than `cap` matches only counts, so what
// is collected stays within the cap plus a piece per thread.
std::uint64_t collect_at_least_in_pieces(std::span<const float> x, std::uint32_t lo,
                                         std::uint64_t cap, ScratchVector<std::uint64_t>& out) {
    const std::size_t pieces = piece_count(x.size(), kScanPiece);
    ScratchVector<ScratchVector<std::uint64_t>> piece_matches(pieces);
    std::atomic<std::uint64_t> counted{0};
    parallel_pieces(x.size(), kScanPiece, [&](std::size_t first, std::size_t size) {
        const std::uint64_t room = counted.load() > cap ? 0 : cap;
        counted +=
            collect_at_least(x.subspan(first, size), lo, room, piece_matches[first / kScanPiece]);
    });
    std::uint64_t taken = 0;
    for (std::size_t p = 0; p < pieces && taken < cap; ++p) {
        for (const std::uint64_t i : piece_matches[p]) {
            if (taken++ == cap) break;
            out.push_back(p * kScanPiece + i);
        }
    }
    return counted.load();
}

// Every element at or above the sampled floor, with its value, when there are at least k of
// them (so the top k are among them) and not many more than expected. False otherwise: the
// caller then takes the exact path through the histogram. One pass: the count comes with the
// collection, which stops filling at the cap.
bool collect_above_floor(std::span<const float> x, std::uint64_t k, const SampledFloor& floor,
                         Selection& s) {
    const std::uint64_t cap = 4 * floor.expected + 1024;
    const std::uint64_t count = codec_threads() <= 1
                                    ? collect_at_least(x, floor.bits, cap, s.indices)
                                    : collect_at_least_in_pieces(x, floor.bits, cap, s.indices);
    if (count < k || count > cap) return false;
    s.values.resize(s.indices.size());
    for (std::size_t j = 0; j < s.indices.size(); ++j) s.values[j] = x[s.indices[j]];
    return true;
}

// The k-th largest magnitude pattern among the candidates, and how many at it are kept.
TopkCut cut_among(std::span<const float> values, std::uint64_t k) {
    ScratchVector<std::uint32_t> bits(values.size());
    std::transform(values.begin(), values.end(), bits.begin(), magnitude_bits);
    const auto at = bits.begin() + static_cast<std::ptrdiff_t>(k - 1);
    std::nth_element(bits.begin(), at, bits.end(), std::greater<>());
    const std::uint32_t cut = *at;
    const auto above = static_cast<std::uint64_t>(std::count_if(
        values.begin(), values.end(), [cut](float v) { return magnitude_bits(v) > cut; }));
    return {cut, k - above};
}

// Elements per collection step of a TopkStream: candidates are pruned between steps.
constexpr std::size_t kStreamStep = std::size_t{1} << 16;

}  // namespace

std::uint64_t topk_count(std::uint64_t n, double density) {
    if (n == 0) return 0;
    double product = density * static_cast<double>(n);
    if (product > 0) {
        // Round to 12 significant digits: 0.001 * 25e6 = 25000.000000000004 means 25000.
        const double scale = std::pow(10.0, 11 - std::floor(std::log10(product)));
        product = std::round(product * scale) / scale;
    }
    const double k = std::ceil(product);
    if (!(k < static_cast<double>(n))) return n;
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(k));
}

TopkCut topk_cut(std::span<const float> x, std::uint64_t k) {
    const auto hist = high_histogram(x);
    const Bucket bucket = find_bucket(hist, k);
    ScratchVector<std::uint64_t> low(kBuckets, 0);
    for (std::size_t i = 0; i < x.size(); ++i) {
        const std::uint32_t b = pattern(&x[i]);
        if ((b >> 16) == bucket.index) ++low[b & 0xffffu];
    }
    return cut_in_bucket(low, bucket.index, k - bucket.above);
}

Selection select_topk(std::span<const float> x, std::uint64_t k) {
    Selection s;
    k = std::min<std::uint64_t>(k, x.size());
    if (k == 0) {
        s.threshold = std::numeric_limits<float>::infinity();
        return s;
    }
    // Usual for small densities: a floor from a sample holds the top k and little more, so
    // one vectorised pass replaces the histogram's increment per element.
    if (const auto floor = sampled_floor(x, k)) {
        if (collect_above_floor(x, k, *floor, s)) {
            const TopkCut cut = cut_among(s.values, k);
            keep_above_cut(s, cut);
            s.threshold = std::bit_cast<float>(cut.bits);
            return s;
        }
        s.indices.clear();
        s.values.clear();
    }
    // A small tensor (a layer, a bucket, an FFT chunk's scores) costs less to select in
    // place than the 16-bit histograms below cost to zero and scan.
    if (x.size() <= kSmallTensor) {
        const TopkCut cut = cut_among(x, k);
        collect_candidates(x, cut.bits, count_at_least(x, cut.bits), s.indices, s.values);
        keep_above_cut(s, cut);
        s.threshold = std::bit_cast<float>(cut.bits);
        return s;
    }
    const auto hist = high_histogram(x);
    const Bucket bucket = find_bucket(hist, k);
    const std::uint64_t candidates = bucket.above + hist[bucket.index];
    TopkCut cut;
    if (candidates <= x.size() / 4) {
        // Usual case: collect every element at or above the bucket once (ascending) with its
        // value, then finish the select and the compaction on that short list without
        // touching x again; the kept values travel with the selection.
        collect_candidates(x, bucket.index << 16, candidates, s.indices, s.values);
        ScratchVector<std::uint64_t> low(kBuckets, 0);
        for (const float v : s.values) {
            const std::uint32_t b = magnitude_bits(v);
            if ((b >> 16) == bucket.index) ++low[b & 0xffffu];
        }
        cut = cut_in_bucket(low, bucket.index, k - bucket.above);
        keep_above_cut(s, cut);
    } else {
        // A huge bucket (many equal magnitudes): histogram its low bits over the whole tensor.
        ScratchVector<std::uint64_t> low(kBuckets, 0);
        for (std::size_t i = 0; i < x.size(); ++i) {
            const std::uint32_t b = pattern(&x[i]);
            if ((b >> 16) == bucket.index) ++low[b & 0xffffu];
        }
        cut = cut_in_bucket(low, bucket.index, k - bucket.above);
        s.indices.reserve(k);
        std::uint64_t ties = cut.ties;
        for (std::size_t i = 0; i < x.size(); ++i) {
            const std::uint32_t b = pattern(&x[i]);
            if (b > cut.bits || (b == cut.bits && ties > 0)) {
                if (b == cut.bits) --ties;
                s.indices.push_back(i);
            }
        }
    }
    s.threshold = std::bit_cast<float>(cut.bits);
    return s;
}

TopkStream::TopkStream(std::uint64_t k) : k_(k) {}

std::optional<std::uint64_t> TopkStream::add(std::span<const float> piece, std::uint64_t first) {
    std::optional<std::uint64_t> nonfinite;
    if (k_ == 0) return nonfinite;
    const std::size_t prune_at =
        static_cast<std::size_t>(std::max<std::uint64_t>(4 * k_, kStreamStep));
    for (std::size_t at = 0; at < piece.size(); at += kStreamStep) {
        const auto step = piece.subspan(at, std::min(kStreamStep, piece.size() - at));
        const std::size_t before = held_.indices.size();
        collect_at_least(step, lo_, step.size(), held_.indices);
        held_.values.resize(held_.indices.size());
        for (std::size_t j = before; j < held_.indices.size(); ++j) {
            const float v = step[held_.indices[j]];
            held_.values[j] = v;
            held_.indices[j] += first + at;
            if (!nonfinite && !std::isfinite(v)) nonfinite = held_.indices[j];
        }
        if (held_.indices.size() > prune_at) prune(prune_at);
    }
    return nonfinite;
}

// Keeps what can still be among the top k: the held values from the 2^16-wide bucket of
// magnitude patterns that holds the k-th largest held one upwards. At least k held values
// reach that bucket's floor and come before any later element, so a later element below the
// floor cannot rank in the top k. A radix histogram: far cheaper than an exact select.
void TopkStream::keep_from_bucket_floor() {
    const std::uint32_t floor = find_bucket(high_histogram_serial(held_.values), k_).index << 16;
    std::size_t out = 0;
    for (std::size_t j = 0; j < held_.values.size(); ++j) {
        held_.indices[out] = held_.indices[j];
        held_.values[out] = held_.values[j];
        out += magnitude_bits(held_.values[j]) >= floor ? 1 : 0;
    }
    held_.indices.resize(out);
    held_.values.resize(out);
    lo_ = std::max(lo_, floor);
}

// Keeps exactly the k largest held, ties to the lower indices (which come first); later
// elements must then exceed the k-th. Returns the cut.
TopkCut TopkStream::keep_top_k() {
    const TopkCut cut = cut_among(held_.values, k_);
    keep_above_cut(held_, cut);
    lo_ = cut.bits + 1;
    return cut;
}

// The bucket floor, and the exact cut only when a bucket of many equal magnitudes left more
// than half of `prune_at`: each prune at least halves what is held.
void TopkStream::prune(std::size_t prune_at) {
    keep_from_bucket_floor();
    if (held_.indices.size() > prune_at / 2) keep_top_k();
}

Selection TopkStream::finish() {
    if (k_ == 0) {
        Selection none;
        none.threshold = std::numeric_limits<float>::infinity();
        return none;
    }
    // Until the first prune every element is held, so at least k are (k never exceeds the
    // tensor's size).
    if (held_.indices.size() > 2 * k_) keep_from_bucket_floor();
    held_.threshold = std::bit_cast<float>(keep_top_k().bits);
    return std::move(held_);
}

}  // namespace gradcodec
