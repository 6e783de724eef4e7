#include "select/weighted_prefix.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>

#include "common/cpu_features.hpp"
#include "common/left_pack.hpp"
#include "select/selection.hpp"

namespace gradcodec {
namespace {

// A radix select on weights over digits of 11, 10 and 10 bits of the magnitude pattern (the
// sign bit is clear): tables of 2K and 1K entries stay in L1 and cost a small tensor little to
// clear, where 16-bit tables cost more to clear and scan than a bucket's scores to rank.
constexpr unsigned kTopShift = 20;
constexpr std::size_t kTopBuckets = std::size_t{1} << 11;
constexpr unsigned kLowBits = 10;
constexpr std::size_t kLowBuckets = std::size_t{1} << kLowBits;

struct Reach {
    std::uint32_t bucket;  // where the weight, summed from the top, reaches the target
    std::uint64_t above;   // the weight of the buckets above it
};

Reach bucket_reaching(std::span<const std::uint64_t> weights, std::uint64_t target) {
    std::uint64_t above = 0;
    for (std::size_t b = weights.size(); b-- > 0;) {
        if (above + weights[b] >= target) return {static_cast<std::uint32_t>(b), above};
        above += weights[b];
    }
    return {0, above};  // unreachable when target <= the total weight
}

// The elements at or above a floor pattern, ascending, with their patterns. Indices are
// 32-bit when the scores allow: half the stores of the pass that collects them.
template <class Index>
struct Candidates {
    explicit Candidates(std::size_t capacity)
        : indices(scratch_array_for_overwrite<Index>(capacity)),
          bits(scratch_array_for_overwrite<std::uint32_t>(capacity)) {}
    ScratchArray<Index> indices;
    ScratchArray<std::uint32_t> bits;
    std::size_t size = 0;
};

// A floor pattern, and how many elements may reach it before the floor is judged too low.
struct Floor {
    std::uint32_t bits;
    std::uint64_t cap;
};

// The exact floor: the lowest top digit whose bucket and those above weigh at least `target`.
// Two interleaved tables halve the stalls of runs of equal buckets.
Floor exact_floor(std::span<const float> scores, std::span<const std::uint32_t> single_bits,
                  std::uint64_t target) {
    std::array<std::uint64_t, kTopBuckets> h0{}, h1{};
    std::size_t i = 0;
    for (; i + 2 <= scores.size(); i += 2) {
        h0[magnitude_bits(scores[i]) >> kTopShift] += 2;
        h1[magnitude_bits(scores[i + 1]) >> kTopShift] += 2;
    }
    if (i < scores.size()) h0[magnitude_bits(scores[i]) >> kTopShift] += 2;
    for (const std::uint32_t b : single_bits) h0[b >> kTopShift] -= 1;
    for (std::size_t b = 0; b < kTopBuckets; ++b) h0[b] += h1[b];
    return {bucket_reaching(h0, target).bucket << kTopShift, scores.size()};
}

// Large tensors first try a floor read from a sample: slices of contiguous scores spread over
// the tensor, the floor set where the sample, scaled up, weighs a sixth more than `target`.
// A floor from a sample can be wrong either way; the caller checks it.
constexpr std::size_t kSampleFrom = std::size_t{1} << 16;
constexpr std::size_t kSampleSlices = 128;
constexpr std::size_t kSliceValues = 128;

std::optional<Floor> sampled_floor(std::span<const float> scores, std::uint64_t target) {
    const std::size_t n = scores.size();
    if (n < kSampleFrom) return std::nullopt;
    std::array<std::uint32_t, kTopBuckets> counts{};
    for (std::size_t slice = 0; slice < kSampleSlices; ++slice) {
        const std::size_t first = slice * (n - kSliceValues) / (kSampleSlices - 1);
        for (std::size_t i = first; i < first + kSliceValues; ++i)
            ++counts[magnitude_bits(scores[i]) >> kTopShift];
    }
    constexpr double kSample = kSampleSlices * kSliceValues;
    // Sampled elements needed, each counted as weighing 2.
    const double need =
        std::ceil(1.16 * static_cast<double>(target) / 2.0 * kSample / static_cast<double>(n)) +
        32.0;
    if (need > kSample) return std::nullopt;
    std::uint32_t reached = 0;
    for (std::size_t b = kTopBuckets; b-- > 0;) {
        reached += counts[b];
        if (static_cast<double>(reached) >= need) {
            const auto expected =
                static_cast<std::uint64_t>(reached / kSample * static_cast<double>(n));
            return Floor{static_cast<std::uint32_t>(b) << kTopShift, 2 * expected + 4096};
        }
    }
    return std::nullopt;
}

// Every element at or above the floor, unless more than floor.cap reach it (false then).
// Each index is written before it is known to stay: no branch per element.
template <class Index>
bool collect(std::span<const float> scores, const Floor& floor, Candidates<Index>& out) {
    constexpr std::size_t kBlock = 4096;
    std::size_t m = 0;
    for (std::size_t first = 0; first < scores.size(); first += kBlock) {
        if (m > floor.cap) return false;
        const std::size_t end = std::min(scores.size(), first + kBlock);
        for (std::size_t i = first; i < end; ++i) {
            const std::uint32_t b = magnitude_bits(scores[i]);
            out.indices[m] = static_cast<Index>(i);
            out.bits[m] = b;
            m += b >= floor.bits ? 1 : 0;
        }
    }
    out.size = m;
    return m <= floor.cap;
}

template <class Index>
std::uint64_t weight_at_least(const Candidates<Index>& c,
                              std::span<const std::uint32_t> single_bits, std::uint32_t floor) {
    std::uint64_t weight = 2 * std::uint64_t{c.size};
    for (const std::uint32_t b : single_bits) weight -= b >= floor ? 1 : 0;
    return weight;
}

// The weighted histogram of one digit of `bits` (candidates, then singles among them).
template <std::size_t Buckets>
std::array<std::uint64_t, Buckets> digit_weights(std::span<const std::uint32_t> bits,
                                                 std::span<const std::uint32_t> single_bits,
                                                 unsigned shift) {
    std::array<std::uint64_t, Buckets> h{};
    for (const std::uint32_t b : bits) h[(b >> shift) & (Buckets - 1)] += 2;
    for (const std::uint32_t b : single_bits) h[(b >> shift) & (Buckets - 1)] -= 1;
    return h;
}

// Patterns in an uninitialised array: each is written before it is known to stay.
struct Patterns {
    ScratchArray<std::uint32_t> data;
    std::size_t size = 0;
    std::span<const std::uint32_t> view() const { return {data.get(), size}; }
};

// Entries past its size that a vector store of with_prefix may write.
constexpr std::size_t kPatternSlack = 16;

// bits[first, size) onto `out`, without a branch per pattern.
void add_with_prefix(std::span<const std::uint32_t> bits, std::size_t first, unsigned shift,
                     std::uint32_t prefix, Patterns& out) {
    for (std::size_t i = first; i < bits.size(); ++i) {
        out.data[out.size] = bits[i];
        out.size += (bits[i] >> shift) == prefix ? 1 : 0;
    }
}

#if defined(GRADCODEC_X86_DISPATCH)
// GCC's AVX-512 header builds some intrinsics from deliberately undefined vectors and warns.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// Sixteen patterns per compare and compress (into a register: compress to memory is slow on
// some processors); returns where the portable loop takes over.
__attribute__((target("avx512f"))) std::size_t add_with_prefix_avx512(
    std::span<const std::uint32_t> bits, unsigned shift, std::uint32_t prefix, Patterns& out) {
    const __m512i wanted = _mm512_set1_epi32(static_cast<int>(prefix));
    const __m128i count = _mm_cvtsi32_si128(static_cast<int>(shift));
    std::size_t i = 0;
    for (; i + 16 <= bits.size(); i += 16) {
        const __m512i b = _mm512_loadu_si512(bits.data() + i);
        const __mmask16 match = _mm512_cmpeq_epi32_mask(_mm512_srl_epi32(b, count), wanted);
        _mm512_storeu_si512(out.data.get() + out.size, _mm512_maskz_compress_epi32(match, b));
        out.size += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(match)));
    }
    return i;
}
#pragma GCC diagnostic pop

// Eight patterns per compare, left-packed through a permutation table; returns where the
// portable loop takes over.
__attribute__((target("avx2"))) std::size_t add_with_prefix_avx2(
    std::span<const std::uint32_t> bits, unsigned shift, std::uint32_t prefix, Patterns& out) {
    const __m256i wanted = _mm256_set1_epi32(static_cast<int>(prefix));
    const __m128i count = _mm_cvtsi32_si128(static_cast<int>(shift));
    std::uint32_t* to = out.data.get();
    std::size_t size = out.size;
    std::size_t i = 0;
    for (; i + 8 <= bits.size(); i += 8) {
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bits.data() + i));
        const unsigned match = lane_mask(_mm256_cmpeq_epi32(_mm256_srl_epi32(b, count), wanted));
        store_whole(to + size, left_packed(b, match));
        size += static_cast<std::size_t>(std::popcount(match));
    }
    out.size = size;
    return i;
}
#endif

// The patterns whose top digits equal `prefix`, in order.
Patterns with_prefix(VectorPath path, std::span<const std::uint32_t> bits, unsigned shift,
                     std::uint32_t prefix) {
    Patterns out{scratch_array_for_overwrite<std::uint32_t>(bits.size() + kPatternSlack)};
    std::size_t first = 0;
#if defined(GRADCODEC_X86_DISPATCH)
    if (path == VectorPath::avx512 && cpu_supports(path))
        first = add_with_prefix_avx512(bits, shift, prefix, out);
    if (path == VectorPath::avx2 && cpu_supports(path))
        first = add_with_prefix_avx2(bits, shift, prefix, out);
#endif
    (void)path;
    add_with_prefix(bits, first, shift, prefix, out);
    return out;
}

WeightCut cut_among(std::span<const std::uint32_t> bits, std::span<const std::uint32_t> single_bits,
                    std::uint32_t floor, std::uint64_t target) {
    // Singles below the floor are not candidates: their weight is in no bucket.
    ScratchVector<std::uint32_t> singles_in;
    singles_in.reserve(single_bits.size());
    for (const std::uint32_t b : single_bits)
        if (b >= floor) singles_in.push_back(b);
    return weighted_cut(bits, singles_in, target);
}

// The candidates above the cut, and those at it while weight is still owed, in index order.
template <class Index>
ScratchVector<std::uint64_t> keep_prefix(const Candidates<Index>& c,
                                         std::span<const std::uint64_t> singles,
                                         const WeightCut& cut) {
    ScratchVector<std::uint64_t> kept(c.size + 1);
    std::size_t out = 0;
    std::uint64_t ties = cut.ties;
    for (std::size_t j = 0; j < c.size; ++j) {
        const std::uint32_t b = c.bits[j];
        kept[out] = c.indices[j];
        if (b == cut.bits && ties > 0) {
            const bool single = std::binary_search(singles.begin(), singles.end(), kept[out]);
            ties -= std::min<std::uint64_t>(ties, single ? 1 : 2);
            ++out;
        } else {
            out += b > cut.bits ? 1 : 0;
        }
    }
    kept.resize(out);
    return kept;
}

template <class Index>
ScratchVector<std::uint64_t> weighted_prefix_as(std::span<const float> scores,
                                                std::span<const std::uint64_t> singles,
                                                std::span<const std::uint32_t> single_bits,
                                                std::uint64_t target) {
    std::optional<Candidates<Index>> candidates;
    Floor floor{};
    if (const auto sampled = sampled_floor(scores, target)) {
        floor = *sampled;
        candidates.emplace(std::min<std::size_t>(scores.size(), floor.cap + 4096));
        if (!collect(scores, floor, *candidates) ||
            weight_at_least(*candidates, single_bits, floor.bits) < target) {
            candidates.reset();
        }
    }
    if (!candidates) {
        floor = exact_floor(scores, single_bits, target);
        candidates.emplace(scores.size());
        collect(scores, floor, *candidates);
    }
    const WeightCut cut = cut_among(std::span(candidates->bits.get(), candidates->size),
                                    single_bits, floor.bits, target);
    return keep_prefix(*candidates, singles, cut);
}

}  // namespace

WeightCut weighted_cut(std::span<const std::uint32_t> candidate_bits,
                       std::span<const std::uint32_t> single_bits, std::uint64_t target,
                       VectorPath path) {
    std::uint64_t rest = target;
    const auto step = [&](const auto& weights) {
        const Reach r = bucket_reaching(weights, rest);
        rest -= r.above;
        return r.bucket;
    };
    const std::uint32_t top =
        step(digit_weights<kTopBuckets>(candidate_bits, single_bits, kTopShift));
    // Only the top bucket's members matter from here on.
    const Patterns members = with_prefix(path, candidate_bits, kTopShift, top);
    const Patterns single_members = with_prefix(path, single_bits, kTopShift, top);
    const std::uint32_t middle =
        step(digit_weights<kLowBuckets>(members.view(), single_members.view(), kLowBits));
    const std::uint32_t prefix = (top << kLowBits) | middle;
    const Patterns last = with_prefix(path, members.view(), kLowBits, prefix);
    const Patterns single_last = with_prefix(path, single_members.view(), kLowBits, prefix);
    return {
        (prefix << kLowBits) | step(digit_weights<kLowBuckets>(last.view(), single_last.view(), 0)),
        rest};
}

ScratchVector<std::uint64_t> weighted_prefix(std::span<const float> scores,
                                             std::span<const std::uint64_t> singles,
                                             std::uint64_t target) {
    ScratchVector<std::uint32_t> single_bits(singles.size());
    for (std::size_t s = 0; s < singles.size(); ++s)
        single_bits[s] = magnitude_bits(scores[singles[s]]);
    if (scores.size() <= std::numeric_limits<std::uint32_t>::max())
        return weighted_prefix_as<std::uint32_t>(scores, singles, single_bits, target);
    return weighted_prefix_as<std::uint64_t>(scores, singles, single_bits, target);
}

}  // namespace gradcodec
