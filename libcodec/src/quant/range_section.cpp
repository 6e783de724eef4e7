#include "quant/range_section.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <sstream>
#include <string>

#include "common/bit_pack.hpp"
#include "common/float_values.hpp"
#include "common/huge_pages.hpp"
#include "common/parallel.hpp"
#include "common/scratch.hpp"
#include "quant/magnitude_histogram.hpp"
#include "quant/mantissa_choice.hpp"

namespace gradcodec {
namespace {

constexpr std::uint32_t kMagnitudeMask = 0x7FFFFFFFu;
constexpr std::uint32_t kInfinityBits = 0x7F800000u;
constexpr std::size_t kBlock = 1024;  // codes per packing block; a multiple of 8 keeps blocks
                                      // byte-aligned in the packed output
constexpr std::uint64_t kMaxCount = 1ull << 58;  // count * 16 bits cannot overflow below it
constexpr std::size_t kExceptionBytes = 12;      // u64 index + u32 bits
constexpr std::size_t kRangeHeaderBytes = 7;     // u8 bits, u8 mantissa, u8 flags, u32 pbase
// Values per piece of work when a tensor is split across threads: a multiple of kBlock, so
// every piece starts on a byte of the packed codes.
constexpr std::size_t kPiece = 64 * kBlock;

std::string format_float(double v) {
    std::ostringstream s;
    s.precision(9);
    s << v;
    return s.str();
}

// Encodes `values` (finite) into the packed code bytes at `dst`, block by block so the
// intermediate codes stay in cache. 8-bit codes are the bytes themselves.
void pack_codes_serial(const RangeLadder& ladder, Rounding rounding, std::span<const float> values,
                       std::uint8_t* dst) {
    if (ladder.bits == 8) {
        encode_range_floats(ladder, rounding, values, dst);
        return;
    }
    std::array<std::uint32_t, kBlock> codes;
    std::array<std::uint16_t, kBlock> halves;
    for (std::size_t first = 0; first < values.size(); first += kBlock) {
        const auto block = values.subspan(first, std::min(kBlock, values.size() - first));
        std::uint8_t* out = dst + first / 8 * static_cast<std::size_t>(ladder.bits);
        if (ladder.bits == 16) {
            encode_range_floats(ladder, rounding, block, halves.data());
            for (std::size_t i = 0; i < block.size(); ++i) {
                out[2 * i] = static_cast<std::uint8_t>(halves[i]);
                out[2 * i + 1] = static_cast<std::uint8_t>(halves[i] >> 8);
            }
        } else {
            encode_range_floats(ladder, rounding, block, codes.data());
            pack_bits(std::span<const std::uint32_t>(codes.data(), block.size()), ladder.bits, out);
        }
    }
}

void unpack_codes_serial(const RangeLadder& ladder, const std::uint8_t* src, std::span<float> out) {
    if (ladder.bits == 8) {
        decode_range_floats(ladder, src, out);
        return;
    }
    std::array<std::uint32_t, kBlock> codes;
    std::array<std::uint16_t, kBlock> halves;
    for (std::size_t first = 0; first < out.size(); first += kBlock) {
        const auto block = out.subspan(first, std::min(kBlock, out.size() - first));
        const std::uint8_t* in = src + first / 8 * static_cast<std::size_t>(ladder.bits);
        if (ladder.bits == 16) {
            for (std::size_t i = 0; i < block.size(); ++i) {
                halves[i] = static_cast<std::uint16_t>(in[2 * i] | (in[2 * i + 1] << 8));
            }
            decode_range_floats(ladder, halves.data(), block);
        } else {
            unpack_bits(in, ladder.bits, std::span<std::uint32_t>(codes.data(), block.size()));
            decode_range_floats(ladder, codes.data(), block);
        }
    }
}

void pack_codes(const RangeLadder& ladder, Rounding rounding, std::span<const float> values,
                std::uint8_t* dst) {
    const auto bits = static_cast<std::size_t>(ladder.bits);
    parallel_pieces(values.size(), kPiece, [&](std::size_t first, std::size_t size) {
        pack_codes_serial(ladder, rounding, values.subspan(first, size), dst + first / 8 * bits);
    });
}

void unpack_codes(const RangeLadder& ladder, const std::uint8_t* src, std::span<float> out) {
    const auto bits = static_cast<std::size_t>(ladder.bits);
    parallel_pieces(out.size(), kPiece, [&](std::size_t first, std::size_t size) {
        unpack_codes_serial(ladder, src + first / 8 * bits, out.subspan(first, size));
    });
}

// The ladder value nearest below `limit`, so clamping inputs to it keeps every decoded value
// within the limit whatever the rounding.
float largest_ladder_value_within(const RangeLadder& ladder, float limit) {
    const std::uint32_t key = std::bit_cast<std::uint32_t>(limit) >> ladder.shift();
    return std::bit_cast<float>(key << ladder.shift());
}

RangeSectionHeader read_header(ByteReader& in, std::uint64_t count) {
    RangeSectionHeader h;
    h.ladder.bits = in.u8();
    h.ladder.mantissa = in.u8();
    h.flags = in.u8();
    h.ladder.pbase = in.u32();
    if ((h.flags & ~kRangeKnownFlags) != 0) {
        in.damaged("range-float section has unknown flag bits 0x" +
                   std::to_string(h.flags & ~kRangeKnownFlags));
    }
    if (!ladder_is_valid(h.ladder)) {
        in.damaged("range-float ladder bits=" + std::to_string(h.ladder.bits) + " mantissa=" +
                   std::to_string(h.ladder.mantissa) + " pbase=" + std::to_string(h.ladder.pbase) +
                   " is invalid (bits 2..16, mantissa 0..23, all codes finite)");
    }
    if (count >= kMaxCount)
        in.damaged("range-float section of " + std::to_string(count) + " values");
    if (h.flags & kRangeFlagExceptions) {
        h.exception_count = in.u64();
        if (h.exception_count == 0 || h.exception_count > count) {
            in.damaged("range-float section declares " + std::to_string(h.exception_count) +
                       " non-finite values among " + std::to_string(count));
        }
        in.require(h.exception_count, kExceptionBytes, "non-finite list");
    }
    return h;
}

}  // namespace

RangeParams parse_range_params(SpecParams& p, int default_bits) {
    RangeParams r;
    r.bits = static_cast<int>(p.integer("bits", default_bits, kRangeMinBits, kRangeMaxBits));
    const auto mantissa = p.optional_integer("mantissa", 0, kRangeMaxMantissa);
    r.eps = p.optional_number("eps", static_cast<double>(std::numeric_limits<float>::denorm_min()),
                              static_cast<double>(std::numeric_limits<float>::max()));
    r.rounding = p.choice("round", "nearest", {"nearest", "truncate"}) == "truncate"
                     ? Rounding::truncate
                     : Rounding::nearest;
    const std::string bits_text = "bits=" + std::to_string(r.bits);
    if (mantissa) {
        const int m = static_cast<int>(*mantissa);
        if (m < min_mantissa(r.bits)) {
            p.invalid("mantissa", "an integer in " + std::to_string(min_mantissa(r.bits)) +
                                      "..23 for " + bits_text +
                                      " (fewer leave more codes than binary32 has exponents)");
        }
        r.mantissa = m;
        if (r.eps && !ladder_from_eps(r.bits, m, *r.eps)) {
            const RangeLadder lo{r.bits, m, 1};
            const RangeLadder hi{r.bits, m, max_finite_key(m) - lo.top_code() + 1};
            p.invalid("eps", "a number in [" + format_float(lo.eps()) + ", " +
                                 format_float(hi.eps()) + "] for " + bits_text + ", mantissa=" +
                                 std::to_string(m) + " (the ladder's top must stay finite)");
        }
    } else if (r.eps && mantissa_candidates(r.bits, LadderAnchor{0, r.eps}).empty()) {
        p.invalid("eps", "a smaller eps: with " + bits_text +
                             " no mantissa keeps the ladder's top finite");
    }
    return r;
}

void survey_range_values(const RangeParams& params, const TensorMeta& meta, std::uint64_t total,
                         const EncodeOptions& options, std::span<const float> values,
                         RangeSurvey& survey) {
    const std::uint64_t first = survey.count;
    const MagnitudeSurvey piece =
        survey_magnitudes(values, !params.mantissa && choice_uses_histogram(total));
    std::uint32_t finite_max = piece.max_bits;
    if (piece.max_bits >= kInfinityBits) {
        // Carried exactly in the exception list; their codes are zero.
        finite_max = 0;
        for (std::size_t i = 0; i < values.size(); ++i) {
            const std::uint32_t b = std::bit_cast<std::uint32_t>(values[i]);
            if ((b & kMagnitudeMask) < kInfinityBits) {
                finite_max = std::max(finite_max, b & kMagnitudeMask);
            } else if (options.allow_nonfinite) {
                survey.nonfinite.push_back({first + i, b});
            } else {
                require_finite(meta, values.subspan(i, 1), first + i);
            }
        }
    }
    survey.magnitudes.max_bits = std::max(survey.magnitudes.max_bits, finite_max);
    survey.magnitudes.has_histogram = piece.has_histogram;
    // Non-finite values sit in bins the mantissa choice ignores.
    for (std::size_t b = 0; piece.has_histogram && b < kMagnitudeBins; ++b)
        survey.magnitudes.counts[b] += piece.counts[b];
    if (!choice_uses_histogram(total)) {
        // Small enough to choose the mantissa on the values themselves, non-finite as zero.
        for (const float v : values) survey.small_values.push_back(std::isfinite(v) ? v : 0.0f);
    }
    survey.count += values.size();
}

RangePlan plan_range_section(const RangeParams& params, const RangeSurvey& survey,
                             const TensorMeta& meta, float value_limit) {
    RangePlan plan;
    const float max_abs = std::bit_cast<float>(survey.magnitudes.max_bits);
    const LadderAnchor anchor{max_abs, params.eps};
    const std::optional<int> mantissa =
        params.mantissa ? params.mantissa
                        : choose_mantissa(params.bits, params.rounding, anchor, survey.small_values,
                                          &survey.magnitudes);
    const std::optional<RangeLadder> made =
        mantissa ? make_ladder(params.bits, *mantissa, anchor, params.rounding) : std::nullopt;
    if (!made) {
        // parse_range_params rules this out; reaching here is a caller's bug.
        fail(ErrorKind::usage, meta.name + ": rangeq parameters make no valid ladder");
    }
    plan.ladder = *made;
    plan.rounding = params.rounding;
    if (plan.ladder.top() > value_limit && max_abs > 0.0f) {
        const float clamp = largest_ladder_value_within(plan.ladder, value_limit);
        if (clamp < plan.ladder.eps()) {
            fail(ErrorKind::bad_input, meta.name + ": eps=" + format_float(plan.ladder.eps()) +
                                           " exceeds the largest value of the tensor's dtype");
        }
        if (max_abs > clamp) plan.clamp = clamp;
    }
    plan.exceptions.assign(survey.nonfinite.begin(), survey.nonfinite.end());
    return plan;
}

std::uint64_t range_section_size(const RangePlan& plan, std::uint64_t count) {
    const std::uint64_t exceptions =
        plan.exceptions.empty() ? 0 : 8 + kExceptionBytes * plan.exceptions.size();
    return kRangeHeaderBytes + exceptions + packed_byte_count(count, plan.ladder.bits);
}

void write_range_header(const RangePlan& plan, ByteOutput& out) {
    ByteWriter w(out);
    w.u8(static_cast<std::uint8_t>(plan.ladder.bits));
    w.u8(static_cast<std::uint8_t>(plan.ladder.mantissa));
    std::uint8_t flags = plan.rounding == Rounding::truncate ? kRangeFlagTruncate : 0;
    if (!plan.exceptions.empty()) flags |= kRangeFlagExceptions;
    w.u8(flags);
    w.u32(plan.ladder.pbase);
    if (!plan.exceptions.empty()) {
        w.u64(plan.exceptions.size());
        for (const RangeException& e : plan.exceptions) {
            w.u64(e.index);
            w.u32(e.bits);
        }
    }
}

void write_range_codes(const RangePlan& plan, std::span<const float> values, ByteOutput& out) {
    ScratchVector<float> cleaned;  // a copy only when some values must be replaced
    std::span<const float> ready = values;
    if (!plan.exceptions.empty() || plan.clamp < std::numeric_limits<float>::infinity()) {
        cleaned.assign(values.begin(), values.end());
        for (float& v : cleaned)
            v = std::isfinite(v) ? std::copysign(std::min(std::fabs(v), plan.clamp), v) : 0.0f;
        ready = cleaned;
    }
    pack_codes(plan.ladder, plan.rounding, ready,
               out.extend(packed_byte_count(ready.size(), plan.ladder.bits)));
}

void write_range_section(const RangeParams& params, std::span<const float> values,
                         const TensorMeta& meta, const EncodeOptions& options, ByteOutput& out,
                         float value_limit) {
    RangeSurvey survey;
    survey_range_values(params, meta, values.size(), options, values, survey);
    const RangePlan plan = plan_range_section(params, survey, meta, value_limit);
    write_range_header(plan, out);
    write_range_codes(plan, values, out);
}

void read_range_section(ByteReader& in, std::span<float> out) {
    const RangeSectionHeader h = read_header(in, out.size());
    ScratchVector<RangeException> exceptions(h.exception_count);  // bounded by the bytes left
    for (std::uint64_t i = 0; i < h.exception_count; ++i) {
        exceptions[i] = {in.u64(), in.u32()};
        if (exceptions[i].index >= out.size() ||
            (i > 0 && exceptions[i].index <= exceptions[i - 1].index)) {
            in.damaged("non-finite list index " + std::to_string(exceptions[i].index) +
                       " is out of order or past " + std::to_string(out.size()) + " values");
        }
        if ((exceptions[i].bits & kMagnitudeMask) < kInfinityBits) {
            in.damaged("non-finite list carries a finite value at index " +
                       std::to_string(exceptions[i].index));
        }
    }
    const auto packed = in.bytes(packed_byte_count(out.size(), h.ladder.bits));
    if (!padding_is_zero(packed, out.size(), h.ladder.bits)) {
        in.damaged("range-float codes end with non-zero padding bits");
    }
    unpack_codes(h.ladder, packed.data(), out);
    for (const RangeException& e : exceptions) out[e.index] = std::bit_cast<float>(e.bits);
}

RangeSectionHeader skip_range_section(ByteReader& in, std::uint64_t count) {
    const RangeSectionHeader h = read_header(in, count);
    in.bytes(h.exception_count * kExceptionBytes);
    in.bytes(packed_byte_count(count, h.ladder.bits));
    return h;
}

}  // namespace gradcodec
