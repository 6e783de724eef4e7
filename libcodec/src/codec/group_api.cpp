// The group API: plans one cut over a group's scores (select/), then encodes each tensor
// with it through the codec's own payload writer (format unchanged).
#include <bit>
#include <limits>
#include <string>
#include <utility>

#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "codec/frequency_codec.hpp"
#include "codec/group_codecs.hpp"
#include "codec/sparse_params.hpp"
#include "common/float_values.hpp"
#include "common/parallel.hpp"
#include "gradcodec/error.hpp"
#include "select/dgc.hpp"
#include "select/radix_cut.hpp"
#include "select/sidco.hpp"
#include "select/topk.hpp"

namespace gradcodec {
namespace {

std::uint64_t score_count(GroupFamily family, const CodecSpec& spec, std::uint64_t n) {
    return family == GroupFamily::fft ? fft_group_score_count(spec, n) : n;
}

void visit_scores(GroupFamily family, const CodecSpec& spec, std::span<const float> x,
                  const ScoreVisitor& visit) {
    switch (family) {
        case GroupFamily::fft:
            return fft_group_scores(spec, x, visit);
        case GroupFamily::dct:
            return dct_group_scores(spec, x, visit);
        default:
            return sparse_group_scores(x, visit);
    }
}

float cut_value(std::uint32_t bits) {
    return bits >= 0x7f800000u ? std::numeric_limits<float>::infinity()
                               : std::bit_cast<float>(bits);
}

GroupCut sparse_cut(const CodecSpec& spec, const ScorePasses& passes, std::uint64_t n) {
    const SparseParams p = parse_sparse_params(spec);
    GroupCut cut;
    cut.target_density = p.density;
    MagnitudeCut mc;
    switch (p.selector) {
        case Selector::topk: {
            const std::uint64_t k =
                p.count ? std::min<std::uint64_t>(*p.count, n) : topk_count(n, p.density);
            if (p.count) cut.target_density = n == 0 ? 1.0 : double(k) / double(n);
            mc = group_topk_cut(passes, k);
            cut.threshold = cut_value(mc.bits);
            break;
        }
        case Selector::threshold:
            mc = {magnitude_bits(p.threshold), 0};
            cut.threshold = p.threshold;
            break;
        case Selector::dgc:
            mc = group_dgc_cut(passes, n, p.dgc);
            cut.threshold = cut_value(mc.bits);
            break;
        case Selector::sidco: {
            const SidcoThreshold t = group_sidco_threshold(passes, n, p.sidco);
            mc = {magnitude_bits(t.threshold), 0};
            cut.threshold = t.threshold;
            cut.stages = static_cast<std::uint8_t>(t.stages);
            break;
        }
    }
    cut.bits = mc.bits;
    cut.tie_budget = mc.tie_budget;
    return cut;
}

GroupCut frequency_cut(GroupFamily family, const CodecSpec& spec, const ScorePasses& passes,
                       std::uint64_t n, std::uint64_t scores) {
    const FrequencyParams p = parse_frequency_params(
        spec, family == GroupFamily::fft ? kFftDefaultChunk : kDctDefaultChunk);
    MagnitudeCut mc;
    switch (p.selector) {
        case FrequencySelector::topk:
            mc = group_topk_cut(passes, kept_scalar_target(p.density, n));
            break;
        case FrequencySelector::sidco: {
            SidcoParams sp;
            sp.density = p.density;
            mc = {magnitude_bits(group_sidco_threshold(passes, scores, sp).threshold), 0};
            break;
        }
        case FrequencySelector::dgc: {
            DgcParams dp;
            dp.density = p.density;
            mc = group_dgc_cut(passes, scores, dp);
            break;
        }
    }
    GroupCut cut;
    cut.bits = mc.bits;
    cut.tie_budget = mc.tie_budget;
    cut.threshold = cut_value(mc.bits);
    cut.target_density = p.density;
    return cut;
}

[[noreturn]] void no_group_scope(const CodecSpec& spec) {
    fail(ErrorKind::usage,
         "codec '" + spec.name + "' has no group scope; it applies to " +
             codec_names([](const CodecDef& c) { return c.group != GroupFamily::none; }));
}

}  // namespace

GroupFamily group_family(const CodecSpec& spec) {
    const CodecDef* c = find_codec(spec.name);
    return c ? c->group : GroupFamily::none;
}

bool has_group_scope(const CodecSpec& spec) {
    return group_family(spec) != GroupFamily::none;
}

GroupCut plan_group_cut(const CodecSpec& spec, std::span<const TensorMeta> tensors,
                        const TensorLoader& load, const EncodeOptions& options) {
    validate_codec_spec(spec);
    const GroupFamily family = group_family(spec);
    if (family == GroupFamily::none) no_group_scope(spec);
    // Scoring each tensor splits across options.threads as a tensor's encode does; the pieces
    // do not depend on the count, so neither does the cut.
    const ThreadScope threads(options.threads);
    std::uint64_t n = 0, scores = 0;
    for (const TensorMeta& meta : tensors) {
        require_float_tensor(spec.name, meta);
        n += meta.element_count();
        scores += score_count(family, spec, meta.element_count());
    }
    // Frequency codecs never carry non-finite values; the threshold codecs only when told.
    const bool check_finite = family != GroupFamily::sparse || !options.allow_nonfinite;
    bool first_pass = true;
    const ScorePasses passes = [&](const ScoreVisitor& visit) {
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            const std::vector<std::byte> data = load(i);
            if (data.size() != tensors[i].byte_count()) {
                fail(ErrorKind::bad_input, tensors[i].name + ": " + std::to_string(data.size()) +
                                               " bytes loaded, the tensor has " +
                                               std::to_string(tensors[i].byte_count()));
            }
            const Float32Values values(tensors[i].dtype, data);
            if (first_pass && check_finite) require_finite(tensors[i], values.values());
            visit_scores(family, spec, values.values(), visit);
        }
        first_pass = false;
    };
    GroupCut cut = family == GroupFamily::sparse ? sparse_cut(spec, passes, n)
                                                 : frequency_cut(family, spec, passes, n, scores);
    cut.elements = n;
    return cut;
}

GroupEncoder::GroupEncoder(CodecSpec spec, GroupCut cut, EncodeOptions options)
    : spec_(std::move(spec)), cut_(cut), options_(options) {
    if (!has_group_scope(spec_)) no_group_scope(spec_);
}

EncodedTensor GroupEncoder::encode(const TensorMeta& meta, std::span<const std::byte> data) {
    const ThreadScope threads(options_.threads);
    require_float_tensor(spec_.name, meta);
    if (data.size() != meta.byte_count()) {
        fail(ErrorKind::bad_input, meta.name + ": " + std::to_string(data.size()) +
                                       " bytes given, shape " + shape_to_string(meta.shape) +
                                       " needs " + std::to_string(meta.byte_count()));
    }
    const std::uint64_t budget = cut_.tie_budget == kKeepAllTies
                                     ? kKeepAllTies
                                     : cut_.tie_budget - std::min(spent_, cut_.tie_budget);
    const GroupFamily family = group_family(spec_);
    const std::uint16_t id = family == GroupFamily::fft   ? kCodecFft
                             : family == GroupFamily::dct ? kCodecDct
                                                          : kCodecSparse;
    std::vector<std::uint8_t> payload = encode_float32(meta, data, [&](std::span<const float> x) {
        switch (family) {
            case GroupFamily::fft:
                return encode_fft_with_cut(spec_, meta, x, cut_, budget, options_, spent_);
            case GroupFamily::dct:
                return encode_dct_with_cut(spec_, meta, x, cut_, budget, options_, spent_);
            default:
                return encode_sparse_with_cut(spec_, meta, x, cut_, budget, options_, spent_);
        }
    });
    return {id, spec_.to_string(), std::move(payload)};
}

}  // namespace gradcodec
