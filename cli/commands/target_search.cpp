#include "commands/target_search.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/cli_support.hpp"

namespace gradcodec::cli {
namespace {

// The registry's row for the spec's codec (validate_codec_spec has named the codec).
const CodecCatalogEntry& entry_of(const CodecSpec& spec) {
    static const std::vector<CodecCatalogEntry> catalog = codec_catalog();
    for (const CodecCatalogEntry& e : catalog)
        if (e.name == spec.name) return e;
    fail(ErrorKind::usage, "unknown codec '" + spec.name + "'");
}

// density: a real number bisected in log space; ladder: an integer key whose larger values
// cost more and err less (rangeq's bits, qsgd's levels, lowrank's rank). Both from the row.
const CodecKnob& knob_of(const CodecSpec& spec) {
    return entry_of(spec).knob;
}

// The codecs a kind of target applies to, as the error names them: "topk (density), ...".
std::string codecs_for(bool pointwise) {
    std::string text;
    for (const CodecCatalogEntry& e : codec_catalog()) {
        const bool fits = pointwise
                              ? e.knob.pointwise
                              : e.knob.kind == KnobKind::density || e.knob.kind == KnobKind::ladder;
        if (!fits) continue;
        text += (text.empty() ? "" : ", ") + std::string(e.name);
        if (!pointwise) text += " (" + std::string(e.knob.key) + ")";
    }
    return text;
}

std::string short_number(double v, int digits = 6) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
    return buffer;
}

double round_digits(double v, int digits) {
    return std::strtod(short_number(v, digits).c_str(), nullptr);
}

std::string unit_name(std::span<const UnitTensor> unit) {
    if (unit.size() == 1) return unit[0].meta.name;
    const std::string& first = unit[0].meta.name;
    return first.substr(0, first.rfind('/')) + " (" + std::to_string(unit.size()) + " tensors)";
}

double bits_per_value(const UnitMeasure& m) {
    return m.elements ? 8.0 * double(m.record_bytes) / double(m.elements) : 0.0;
}

std::string describe(const CodecSpec& spec, const UnitMeasure& m) {
    std::string s = spec.to_string() + " (" + short_number(bits_per_value(m), 4) + " bits/value";
    if (m.metrics.count) s += ", rel_l2 " + short_number(m.metrics.rel_l2, 4);
    return s + ")";
}

// The cheapest pointwise-safe setting for one tensor (the library searches and verifies).
TargetChoice pointwise_choice(const CodecSpec& spec, const Target& target, const UnitTensor& t,
                              const TensorLoader& load, const EncodeOptions& options) {
    const PointwiseBound bound{
        target.kind == TargetKind::abs ? PointwiseKind::abs : PointwiseKind::rel, target.value};
    if (const auto chosen = find_pointwise(spec, bound, t.meta, load(0), options))
        return {*chosen, chosen->to_string(), false};
    // No setting meets the bound on this tensor: it is written exact rather than failing the
    // run; the caller names such tensors once at the end.
    const CodecSpec lossless = parse_codec_spec("lossless");
    return {lossless, "lossless (no " + spec.name + " setting meets " + target.text + ")", true};
}

// What a search must meet: a record size (bits=) or a rel L2 error (rel_l2=) over the unit.
struct TargetBudget {
    TargetBudget(const Target& wanted, std::span<const UnitTensor> unit) : target(wanted) {
        for (const UnitTensor& t : unit) elements += t.meta.element_count();
        rate = target.kind == TargetKind::bits;
        budget_bytes = std::floor(target.value * double(elements) / 8.0);
    }
    bool met_by(const UnitMeasure& m) const {
        return rate ? double(m.record_bytes) <= budget_bytes : m.metrics.rel_l2 <= target.value;
    }
    const Target& target;
    std::uint64_t elements = 0;
    bool rate = false;
    double budget_bytes = 0;
};

[[noreturn]] void out_of_reach(const CodecSpec& spec, const Target& target,
                               std::span<const UnitTensor> unit, const CodecSpec& closest,
                               const UnitMeasure& measured) {
    fail(ErrorKind::usage, unit_name(unit) + ": --target " + target.text + " is out of reach for " +
                               spec.name + ": " + describe(closest, measured) + " is the closest");
}

// Bisection over density in log space for the boundary of `ok`, which holds at one end.
// `want_high`: the largest density where ok holds (a rate budget); otherwise the smallest.
TargetChoice density_search(const CodecSpec& spec, const Target& target, Scope scope,
                            std::span<const UnitTensor> unit, const TensorLoader& load,
                            const EncodeOptions& options) {
    const TargetBudget budget(target, unit);
    const bool rate = budget.rate;
    auto measure = [&](double density) {
        const CodecSpec c = spec.with("density", short_number(density, 5));
        return std::pair{c, measure_unit(c, scope, unit, load, options, !rate)};
    };
    auto ok = [&](const UnitMeasure& m) { return budget.met_by(m); };
    const double lowest =
        std::max(1e-12, round_digits(0.5 / double(std::max<std::uint64_t>(budget.elements, 1)), 5));
    auto [low_spec, low] = measure(lowest);
    auto [high_spec, high] = measure(1.0);
    if (rate ? !ok(low) : !ok(high)) {
        const auto& [s, m] = rate ? std::pair{low_spec, low} : std::pair{high_spec, high};
        out_of_reach(spec, target, unit, s, m);
    }
    if (rate && ok(high)) return {high_spec, describe(high_spec, high)};
    if (!rate && ok(low)) return {low_spec, describe(low_spec, low)};
    // Invariant: ok at `good`, not ok at `bad`.
    double good = rate ? lowest : 1.0, bad = rate ? 1.0 : lowest;
    std::pair<CodecSpec, UnitMeasure> best =
        rate ? std::pair{low_spec, low} : std::pair{high_spec, high};
    for (int i = 0; i < 48; ++i) {
        const double mid = round_digits(std::sqrt(good * bad), 5);
        if (mid == good || mid == bad) break;
        auto trial = measure(mid);
        if (ok(trial.second)) {
            good = mid;
            best = std::move(trial);
        } else {
            bad = mid;
        }
    }
    return {best.first, describe(best.first, best.second)};
}

TargetChoice ladder_search(const CodecSpec& spec, const Target& target, Scope scope,
                           std::span<const UnitTensor> unit, const TensorLoader& load,
                           const EncodeOptions& options) {
    const TargetBudget budget(target, unit);
    const bool rate = budget.rate;
    std::optional<std::pair<CodecSpec, UnitMeasure>> chosen, closest;
    std::optional<Error> refused;  // the first step the codec refused
    // A higher step costs more and errs less: a rate keeps the last that fits, an error the first.
    const CodecKnob& knob = knob_of(spec);
    for (const int step : knob.ladder) {
        const CodecSpec c = spec.with(std::string(knob.key), std::to_string(step));
        UnitMeasure m;
        try {
            m = measure_unit(c, scope, unit, load, options, !rate);
        } catch (const Error& e) {
            // A step the values rule out is passed over, not the end of the search: values
            // near the top of f16 (65504) leave rangeq's fewest bits an eps (65536) above
            // what f16 holds, where more bits fit. Refused at every step, the first refusal
            // is the answer.
            if (e.kind() != ErrorKind::bad_input) throw;
            if (!refused) refused.emplace(e);
            continue;
        }
        const bool ok = budget.met_by(m);
        if (!closest || !rate) closest.emplace(c, m);
        if (!ok) {
            if (rate) break;
            continue;
        }
        chosen.emplace(c, m);
        if (!rate) break;
    }
    if (!chosen && !closest) throw *refused;
    if (!chosen) out_of_reach(spec, target, unit, closest->first, closest->second);
    return {chosen->first, describe(chosen->first, chosen->second)};
}

}  // namespace

Target parse_target(const std::string& text) {
    const auto eq = text.find('=');
    const std::string key = text.substr(0, eq);
    Target t;
    t.text = text;
    if (key == "bits")
        t.kind = TargetKind::bits;
    else if (key == "rel_l2")
        t.kind = TargetKind::rel_l2;
    else if (key == "abs")
        t.kind = TargetKind::abs;
    else if (key == "rel")
        t.kind = TargetKind::rel;
    else
        fail(ErrorKind::usage, "--target " + text + ": expected bits=B, rel_l2=E, abs=A or rel=R");
    const std::string value = eq == std::string::npos ? "" : text.substr(eq + 1);
    char* end = nullptr;
    t.value = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !std::isfinite(t.value) || !(t.value > 0) ||
        (t.kind == TargetKind::bits && t.value > 64)) {
        fail(ErrorKind::usage, "--target " + text + ": " + key + " needs a number " +
                                   (t.kind == TargetKind::bits ? "in (0, 64]" : "> 0"));
    }
    return t;
}

bool is_pointwise(const Target& target) {
    return target.kind == TargetKind::abs || target.kind == TargetKind::rel;
}

void check_target_applies(const CodecSpec& spec, const Target& target) {
    const CodecKnob& knob = knob_of(spec);
    const bool fits = is_pointwise(target)
                          ? knob.pointwise
                          : knob.kind == KnobKind::ladder || knob.kind == KnobKind::density;
    if (!fits) {
        fail(
            ErrorKind::usage,
            "--target " + target.text + ": codec '" + spec.name + "' has no knob for it; " +
                (is_pointwise(target) ? "abs= and rel= apply to " : "bits= and rel_l2= apply to ") +
                codecs_for(is_pointwise(target)));
    }
    // The keys the search sets: the knob's own, and count= which fixes a density too.
    std::vector<std::string> chosen{std::string(knob.key)};
    if (knob.kind == KnobKind::density) chosen.emplace_back("count");
    for (const std::string& key : chosen) {
        if (!spec.get(key)) continue;
        fail(ErrorKind::usage, "--target " + target.text + " chooses " + key +
                                   "=; remove it from the codec spec '" + spec.to_string() + "'");
    }
}

namespace {

// A stochastic codec measured without a seed would draw another one for the record that is
// finally written; a seed fixed for the search makes that record the one measured.
CodecSpec with_fixed_seed(const CodecSpec& spec) {
    if (spec.get("seed") || !entry_of(spec).draws_seed) return spec;
    std::random_device source;
    const std::uint64_t seed = ((std::uint64_t{source()} << 32) | source()) >> 1;
    return spec.with("seed", std::to_string(seed));
}

}  // namespace

TargetChoice choose_for_target(const CodecSpec& given, const Target& target, Scope scope,
                               std::span<const UnitTensor> unit, const TensorLoader& load,
                               const EncodeOptions& options) {
    check_target_applies(given, target);
    const CodecSpec spec = with_fixed_seed(given);
    if (is_pointwise(target)) {
        if (unit.size() != 1) fail(ErrorKind::usage, "pointwise targets apply tensor by tensor");
        return pointwise_choice(spec, target, unit[0], load, options);
    }
    if (knob_of(spec).kind == KnobKind::ladder)
        return ladder_search(spec, target, scope, unit, load, options);
    return density_search(spec, target, scope, unit, load, options);
}

}  // namespace gradcodec::cli
