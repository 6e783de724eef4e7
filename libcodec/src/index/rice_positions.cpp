// The Golomb-Rice gap coders: one parameter for the whole set (near the entropy bound when the
// kept positions look uniformly spread), or one parameter per block of gaps, which follows the
// local density of clustered positions (rows or channels of large gradients) and then codes
// real gradients' positions below the uniform bound log2 C(n,k).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/cpu_features.hpp"
#include "common/scratch.hpp"
#include "index/position_coders.hpp"

namespace gradcodec {
namespace {

std::uint64_t gap_at(std::span<const std::uint64_t> sorted, std::size_t i) {
    return i == 0 ? sorted[0] : sorted[i] - sorted[i - 1] - 1;
}

// Sums of (g >> r) over a run of gaps for every r: the Rice size of the run with parameter r is
// sum[r] + count * (r + 1), so one pass gives the exact size for every parameter.
// Only sum[0, top) is ever written or read (sum[r] is 0 for every r >= top), so a ShiftSums
// is not zero-filled: thousands are made per call, and filling 64 sums each cost more than
// the few that gaps of kept positions use.
struct ShiftSums {
    std::array<std::uint64_t, 64> sum;
    unsigned top = 0;
    std::uint64_t count = 0;

    ShiftSums() = default;
    ShiftSums(const ShiftSums& o) : top(o.top), count(o.count) {
        std::copy_n(o.sum.begin(), o.top, sum.begin());
    }
    ShiftSums& operator=(const ShiftSums& o) {
        top = o.top;
        count = o.count;
        std::copy_n(o.sum.begin(), o.top, sum.begin());
        return *this;
    }

    std::uint64_t at(unsigned r) const { return r < top ? sum[r] : 0; }
    // Makes sum[0, new_top) valid, the new entries 0.
    void raise_top(unsigned new_top) {
        for (unsigned r = top; r < new_top; ++r) sum[r] = 0;
        top = std::max(top, new_top);
    }
    void merge(const ShiftSums& o) { set_merged(*this, o); }
    // The sums of a and b; a may be this one. No test per entry: the entries both hold, then
    // the longer one's rest.
    void set_merged(const ShiftSums& a, const ShiftSums& b) {
        const unsigned both = std::min(a.top, b.top);
        const ShiftSums& longer = a.top > b.top ? a : b;
        const unsigned merged_top = longer.top;
        for (unsigned r = 0; r < both; ++r) sum[r] = a.sum[r] + b.sum[r];
        for (unsigned r = both; r < merged_top; ++r) sum[r] = longer.sum[r];
        count = a.count + b.count;
        top = merged_top;
    }
    // The smallest size and its parameter (ties to the smaller r). The size is convex in r:
    // size(r+1) - size(r) = count - sum of ceil((g >> r) / 2), which never falls as r grows,
    // so the first r that does not shrink it ends the search; past `top` sizes only grow.
    RiceChoice best() const {
        RiceChoice c{0, at(0) + count};
        for (unsigned r = 1; r <= std::min(top, 63u); ++r) {
            const std::uint64_t bits = at(r) + count * (r + 1);
            if (bits >= c.bits) break;
            c = {r, bits};
        }
        return c;
    }
};

// The sum of (narrow[i] >> r) over `count` 32-bit gaps, the array padded with zeros to a
// multiple of four. GCC does not vectorise this loop at -O2 (its trip count is not fixed), so
// SSE2 shifts four gaps at a time.
std::uint32_t shifted_sum(const std::uint32_t* narrow, std::size_t count, unsigned r) {
#if defined(__SSE2__)
    const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(r));
    __m128i acc = _mm_setzero_si128();
    for (std::size_t i = 0; i < count; i += 4) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(narrow + i));
        acc = _mm_add_epi32(acc, _mm_srl_epi32(v, shift));
    }
    acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, _MM_SHUFFLE(1, 0, 3, 2)));
    acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, _MM_SHUFFLE(2, 3, 0, 1)));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(acc));
#else
    std::uint32_t total = 0;
    for (std::size_t i = 0; i < count; ++i) total += narrow[i] >> r;
    return total;
#endif
}

// Gaps below 2^kRowBits (those of all but sparse sets) add a row of the table instead: row g
// holds g >> r for r in [0, kRowBits), one 16-bit lane each, so one vector add per gap serves
// every shift. A run of 256 such gaps sums to at most 256 * 255 per lane, which fits.
constexpr unsigned kRowBits = 8;
struct alignas(16) ShiftRow {
    std::array<std::uint16_t, kRowBits> lane;
};
const std::array<ShiftRow, std::size_t{1} << kRowBits>& shift_rows() {
    static const auto rows = [] {
        std::array<ShiftRow, std::size_t{1} << kRowBits> t{};
        for (unsigned g = 0; g < t.size(); ++g)
            for (unsigned r = 0; r < kRowBits; ++r)
                t[g].lane[r] = static_cast<std::uint16_t>(g >> r);
        return t;
    }();
    return rows;
}

// Adds each gap's row to sum[0, kRowBits); every gap is below 2^kRowBits.
void add_shift_rows(const std::uint64_t* gaps, std::size_t count, std::uint64_t* sum) {
    const auto& rows = shift_rows();
#if defined(__SSE2__)
    __m128i acc = _mm_setzero_si128();
    for (std::size_t i = 0; i < count; ++i)
        acc = _mm_add_epi16(acc, _mm_load_si128(reinterpret_cast<const __m128i*>(&rows[gaps[i]])));
    alignas(16) std::array<std::uint16_t, kRowBits> lanes;
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes.data()), acc);
#else
    std::array<std::uint16_t, kRowBits> lanes{};
    for (std::size_t i = 0; i < count; ++i)
        for (unsigned r = 0; r < kRowBits; ++r) lanes[r] += rows[gaps[i]].lane[r];
#endif
    for (unsigned r = 0; r < kRowBits; ++r) sum[r] += lanes[r];
}

#if defined(GRADCODEC_X86_DISPATCH)
constexpr std::size_t kLeafGaps = std::size_t{1} << kRiceBlockLog2Min;
static_assert(kLeafGaps == 32);

// GCC's AVX-512 header builds some intrinsics from deliberately undefined vectors and warns.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// The sums of the 32 gaps that end at p[0..32), p[-1] being the position before them, in two
// vectors of 16 32-bit gaps: per parameter two shifts, an add and one reduction for the whole
// leaf. False, `s` untouched, when a gap is 2^24 or more (a lane sum could overflow).
__attribute__((target("avx512f"))) bool leaf_shift_sums_avx512(const std::uint64_t* p,
                                                               ShiftSums& s) {
    const __m512i one = _mm512_set1_epi64(1);
    __m256i narrow[4];
    __m512i any = _mm512_setzero_si512();
    for (std::size_t j = 0; j < 4; ++j) {
        const __m512i gap = _mm512_sub_epi64(
            _mm512_sub_epi64(_mm512_loadu_si512(p + 8 * j), _mm512_loadu_si512(p + 8 * j - 1)),
            one);
        any = _mm512_or_si512(any, gap);
        narrow[j] = _mm512_cvtepi64_epi32(gap);
    }
    const auto top = static_cast<unsigned>(
        std::bit_width(static_cast<std::uint64_t>(_mm512_reduce_or_epi64(any))));
    if (top > 24) return false;
    const __m512i low = _mm512_inserti64x4(_mm512_castsi256_si512(narrow[0]), narrow[1], 1);
    const __m512i high = _mm512_inserti64x4(_mm512_castsi256_si512(narrow[2]), narrow[3], 1);
    s.raise_top(top);
    for (unsigned r = 0; r < top; ++r) {
        const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(r));
        const __m512i sum =
            _mm512_add_epi32(_mm512_srl_epi32(low, shift), _mm512_srl_epi32(high, shift));
        s.sum[r] += static_cast<std::uint32_t>(_mm512_reduce_add_epi32(sum));
    }
    s.count += kLeafGaps;
    return true;
}
#pragma GCC diagnostic pop

// The low 32 bits of four 64-bit lanes each of `a` and `b`, a's first.
__attribute__((target("avx2"), always_inline)) inline __m256i low_halves(__m256i a, __m256i b) {
    const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    return _mm256_permute2x128_si256(_mm256_permutevar8x32_epi32(a, even),
                                     _mm256_permutevar8x32_epi32(b, even), 0x20);
}

// The sum of eight 32-bit lanes.
__attribute__((target("avx2"), always_inline)) inline std::uint32_t lane_sum(__m256i v) {
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(1, 0, 3, 2)));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1)));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(x));
}

// The four gaps that end at p[0..4), p[-1] being the position before them.
__attribute__((target("avx2"), always_inline)) inline __m256i gaps_ending_at(
    const std::uint64_t* p) {
    const __m256i here = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i before = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p - 1));
    return _mm256_sub_epi64(_mm256_sub_epi64(here, before), _mm256_set1_epi64x(1));
}

// As leaf_shift_sums_avx512, in four vectors of eight 32-bit gaps.
__attribute__((target("avx2"))) bool leaf_shift_sums_avx2(const std::uint64_t* p, ShiftSums& s) {
    __m256i narrow[4];
    __m256i any = _mm256_setzero_si256();
    for (std::size_t j = 0; j < 4; ++j) {
        const __m256i low = gaps_ending_at(p + 8 * j), high = gaps_ending_at(p + 8 * j + 4);
        any = _mm256_or_si256(any, _mm256_or_si256(low, high));
        narrow[j] = low_halves(low, high);
    }
    const __m128i any2 =
        _mm_or_si128(_mm256_castsi256_si128(any), _mm256_extracti128_si256(any, 1));
    const auto any1 = static_cast<std::uint64_t>(_mm_cvtsi128_si64(any2)) |
                      static_cast<std::uint64_t>(_mm_extract_epi64(any2, 1));
    const auto top = static_cast<unsigned>(std::bit_width(any1));
    if (top > 24) return false;
    s.raise_top(top);
    for (unsigned r = 0; r < top; ++r) {
        const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(r));
        const __m256i sum = _mm256_add_epi32(_mm256_add_epi32(_mm256_srl_epi32(narrow[0], shift),
                                                              _mm256_srl_epi32(narrow[1], shift)),
                                             _mm256_add_epi32(_mm256_srl_epi32(narrow[2], shift),
                                                              _mm256_srl_epi32(narrow[3], shift)));
        s.sum[r] += lane_sum(sum);
    }
    s.count += kLeafGaps;
    return true;
}
#endif

// Runs of at most 2^kRiceBlockLog2Max gaps. Rather than one loop per gap whose length follows
// the gap's bit width (a mispredicted exit per gap), every shift up to the run's widest gap
// is applied to all gaps of the run. Gaps under 2^24 (all but the sparsest sets') are summed
// in 32-bit lanes, four per vector; a run of 256 of them cannot overflow.
ShiftSums shift_sums(VectorPath path, std::span<const std::uint64_t> sorted, std::size_t begin,
                     std::size_t end) {
    ShiftSums s;
#if defined(GRADCODEC_X86_DISPATCH)
    if (begin > 0 && end - begin == kLeafGaps) {
        const std::uint64_t* leaf = sorted.data() + begin;
        if (path == VectorPath::avx512 && leaf_shift_sums_avx512(leaf, s)) return s;
        if (path == VectorPath::avx2 && leaf_shift_sums_avx2(leaf, s)) return s;
    }
#else
    (void)path;
#endif
    constexpr std::size_t kRun = std::size_t{1} << kRiceBlockLog2Max;
    constexpr unsigned kNarrowBits = 24;
    static_assert(kRun << kNarrowBits <= (std::uint64_t{1} << 32));
    std::array<std::uint64_t, kRun> gaps;
    alignas(16) std::array<std::uint32_t, kRun + 4> narrow;
    for (std::size_t first = begin; first < end; first += kRun) {
        const std::size_t count = std::min(kRun, end - first);
        // The position before the first is -1, so that the first gap is the first position.
        std::uint64_t previous = first == 0 ? ~std::uint64_t{0} : sorted[first - 1];
        std::uint64_t any = 0;
        for (std::size_t i = 0; i < count; ++i) {
            gaps[i] = sorted[first + i] - previous - 1;
            previous = sorted[first + i];
            any |= gaps[i];
        }
        const auto top = static_cast<unsigned>(std::bit_width(any));
        s.raise_top(top);
        if (top <= kRowBits) {
            // A row's lanes from r = top on are 0: sum[s.top, kRowBits) is back at 0 after.
            const unsigned kept_top = s.top;
            s.raise_top(kRowBits);
            add_shift_rows(gaps.data(), count, s.sum.data());
            s.top = kept_top;
        } else if (top <= kNarrowBits) {
            for (std::size_t i = 0; i < count; ++i) narrow[i] = static_cast<std::uint32_t>(gaps[i]);
            const std::size_t padded = (count + 3) & ~std::size_t{3};
            for (std::size_t i = count; i < padded; ++i) narrow[i] = 0;
            for (unsigned r = 0; r < top; ++r) s.sum[r] += shifted_sum(narrow.data(), padded, r);
        } else {
            for (unsigned r = 0; r < top; ++r) {
                std::uint64_t total = 0;
                for (std::size_t i = 0; i < count; ++i) total += gaps[i] >> r;
                s.sum[r] += total;
            }
        }
        s.count += count;
    }
    return s;
}

// Codes of gap g with parameter r: q = g >> r zeros, a one, then the low r bits.
struct RiceCode {
    std::uint64_t bits;
    unsigned length;
};
RiceCode rice_code(std::uint64_t g, unsigned r, std::uint64_t low_mask) {
    const std::uint64_t q = g >> r;
    return {((g & low_mask) << (q + 1)) | (std::uint64_t{1} << q),
            static_cast<unsigned>(q + 1 + r)};
}

// Four codes of at most kQuadCodeBits bits each go out in one write of at most 56 bits: the
// writes are a chain (each depends on where the last one ended), the codes are not.
constexpr unsigned kQuadCodeBits = 14;

void encode_range(BitWriter& w, std::span<const std::uint64_t> sorted, std::size_t begin,
                  std::size_t end, unsigned r) {
    const std::uint64_t low_mask = r == 0 ? 0 : (~0ull >> (64 - r));
    // A code of at most 56 bits takes at most 7 bytes.
    BitWriter::Cursor c = w.open(7 * (end - begin));
    const auto encode_one = [&](std::size_t i) {
        const std::uint64_t g = gap_at(sorted, i);
        const std::uint64_t q = g >> r;
        if (q + 1 + r <= 56) {  // the whole code in one write
            const RiceCode code = rice_code(g, r, low_mask);
            BitWriter::put_at(c, code.bits, code.length);
            return;
        }
        w.close(c);
        w.zeros(q);
        w.put(1, 1);
        w.put(g & low_mask, r);
        c = w.open(7 * (end - i));
    };
    std::size_t i = begin;
    if (i == 0 && i < end) encode_one(i++);  // the first gap has no position before it
    for (; i + 4 <= end; i += 4) {
        std::array<std::uint64_t, 4> g;
        for (std::size_t j = 0; j < 4; ++j) g[j] = sorted[i + j] - sorted[i + j - 1] - 1;
        // (q0|q1|q2|q3) bounds each q from above.
        if (((g[0] | g[1] | g[2] | g[3]) >> r) + 1 + r > kQuadCodeBits) {
            for (std::size_t j = 0; j < 4; ++j) encode_one(i + j);
            continue;
        }
        const RiceCode c0 = rice_code(g[0], r, low_mask), c1 = rice_code(g[1], r, low_mask);
        const RiceCode c2 = rice_code(g[2], r, low_mask), c3 = rice_code(g[3], r, low_mask);
        const std::uint64_t low = c0.bits | (c1.bits << c0.length);
        const std::uint64_t high = c2.bits | (c3.bits << c2.length);
        const unsigned low_length = c0.length + c1.length;
        BitWriter::put_at(c, low | (high << low_length), low_length + c2.length + c3.length);
    }
    for (; i < end; ++i) encode_one(i);
    w.close(c);
}

// Decodes `count` codes with parameter r; `next` is the smallest position the next gap may
// start from.
void decode_range(BitReader& in, std::uint64_t n, std::uint64_t count, unsigned r,
                  std::uint64_t& next, PositionEmitter& out) {
    for (std::uint64_t i = 0; i < count; ++i) {
        std::uint64_t q = 0, low = 0;
        if (!in.try_rice(r, q, low)) {
            q = in.unary(n >> r);
            low = r <= 56 ? in.get(r) : (in.get(r - 32) | (in.get(32) << (r - 32)));
        }
        if (q > (n >> r)) in.damaged("a gap exceeds the tensor");
        const std::uint64_t gap = (q << r) | low;
        if (gap >= n - next) in.damaged("a gap runs past the element count " + std::to_string(n));
        out.push(next + gap);
        next += gap + 1;
    }
}

}  // namespace

RiceCosts rice_costs(std::span<const std::uint64_t> sorted, VectorPath path) {
    if (!cpu_supports(path)) path = VectorPath::portable;
    // Blocks of 2^5..2^8 gaps nest inside aligned 256-gap groups: build the 32-gap sums, then
    // merge pairs upwards, so every block size costs one pass in all.
    constexpr unsigned kLevels = kRiceBlockLog2Max - kRiceBlockLog2Min + 1;
    constexpr std::size_t kGroup = std::size_t{1} << kRiceBlockLog2Max;
    constexpr std::size_t kLeaf = std::size_t{1} << kRiceBlockLog2Min;
    std::array<std::uint64_t, kLevels> block_bits{};
    std::array<ScratchVector<std::uint8_t>, kLevels> parameters;
    for (unsigned l = 0; l < kLevels; ++l)
        parameters[l].reserve((sorted.size() >> (kRiceBlockLog2Min + l)) + 1);
    ShiftSums total;
    for (std::size_t g = 0; g < sorted.size(); g += kGroup) {
        std::array<ShiftSums, kGroup / kLeaf> level;
        std::size_t blocks = 0;
        for (std::size_t b = g; b < std::min(sorted.size(), g + kGroup); b += kLeaf) {
            level[blocks++] = shift_sums(path, sorted, b, std::min(sorted.size(), b + kLeaf));
        }
        for (unsigned l = 0; l < kLevels; ++l) {
            for (std::size_t i = 0; i < blocks; ++i) {
                const RiceChoice best = level[i].best();
                block_bits[l] += kRiceBlockParameterBits + best.bits;
                parameters[l].push_back(static_cast<std::uint8_t>(best.r));
            }
            if (l + 1 == kLevels) break;
            // level[i / 2] is written after level[i] and level[i + 1] were read (i / 2 <= i).
            for (std::size_t i = 0; i < blocks; i += 2) {
                if (i + 1 < blocks) {
                    level[i / 2].set_merged(level[i], level[i + 1]);
                } else {
                    level[i / 2] = level[i];
                }
            }
            blocks = (blocks + 1) / 2;
        }
        total.merge(level[0]);
    }
    RiceCosts c;
    const RiceChoice plain = total.best();
    c.parameter = plain.r;
    c.bits = sorted.empty() ? 0 : plain.bits;
    c.block_log2 = kRiceBlockLog2Min;
    c.block_bits = block_bits[0];
    for (unsigned l = 1; l < kLevels; ++l) {
        if (block_bits[l] < c.block_bits) {
            c.block_bits = block_bits[l];
            c.block_log2 = kRiceBlockLog2Min + l;
        }
    }
    c.block_parameters = std::move(parameters[c.block_log2 - kRiceBlockLog2Min]);
    return c;
}

ScratchVector<std::uint8_t> encode_rice(std::span<const std::uint64_t> sorted, unsigned r,
                                        std::size_t bytes) {
    BitWriter w;
    w.reserve(bytes);
    encode_range(w, sorted, 0, sorted.size(), r);
    return w.finish();
}

void decode_rice(BitReader& in, std::uint64_t n, std::uint64_t k, unsigned r,
                 PositionEmitter& out) {
    std::uint64_t next = 0;
    decode_range(in, n, k, r, next, out);
}

ScratchVector<std::uint8_t> encode_rice_blocks(std::span<const std::uint64_t> sorted,
                                               unsigned log2_block,
                                               std::span<const std::uint8_t> parameters,
                                               std::size_t bytes) {
    BitWriter w;
    w.reserve(bytes);
    const std::size_t block = std::size_t{1} << log2_block;
    const bool known = parameters.size() == (sorted.size() + block - 1) / block;
    static const VectorPath path = widest_vector_path();
    for (std::size_t b = 0; b < sorted.size(); b += block) {
        const std::size_t e = std::min(sorted.size(), b + block);
        const unsigned r =
            known ? parameters[b >> log2_block] : shift_sums(path, sorted, b, e).best().r;
        w.put(r, kRiceBlockParameterBits);
        encode_range(w, sorted, b, e, r);
    }
    return w.finish();
}

void decode_rice_blocks(BitReader& in, std::uint64_t n, std::uint64_t k, unsigned log2_block,
                        PositionEmitter& out) {
    const std::uint64_t block = std::uint64_t{1} << log2_block;
    std::uint64_t next = 0;
    for (std::uint64_t b = 0; b < k; b += block) {
        const auto r = static_cast<unsigned>(in.get(kRiceBlockParameterBits));
        decode_range(in, n, std::min(block, k - b), r, next, out);
    }
}

}  // namespace gradcodec
