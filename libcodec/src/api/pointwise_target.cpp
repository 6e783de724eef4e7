#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "common/float_values.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/pointwise.hpp"

namespace gradcodec {
namespace {

// Cheapest first: rangeq by bits, then mantissa (the per-tensor choice before each fixed m).
std::vector<CodecSpec> candidates(const CodecSpec& spec) {
    if (spec.name == "cast") return {spec.with("to", "bf16"), spec.with("to", "f16")};
    std::vector<CodecSpec> out;
    for (int bits = 2; bits <= 16; ++bits) {
        const CodecSpec b = spec.with("bits", std::to_string(bits));
        out.push_back(b);
        if (spec.get("mantissa")) continue;
        for (int m = 0; m <= std::min(23, bits - 1); ++m) {
            out.push_back(b.with("mantissa", std::to_string(m)));
        }
    }
    return out;
}

std::string describe(const PointwiseBound& b) {
    char text[64];
    std::snprintf(text, sizeof text, "%s=%g", b.kind == PointwiseKind::abs ? "abs" : "rel",
                  b.value);
    return text;
}

}  // namespace

double pointwise_excess(const PointwiseBound& bound, DType dtype,
                        std::span<const std::byte> original, std::span<const std::byte> decoded) {
    const std::size_t n = original.size() / dtype_size(dtype);
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double x = float_element(dtype, original, i);
        const double y = float_element(dtype, decoded, i);
        if (x == y) continue;  // exact, including equal infinities
        const double error = std::fabs(y - x);
        const double allowed =
            bound.kind == PointwiseKind::abs ? bound.value : bound.value * std::fabs(x);
        if (!std::isfinite(error) || !(allowed > 0)) return std::numeric_limits<double>::infinity();
        worst = std::max(worst, error / allowed);
    }
    return worst;
}

namespace {

// The cheapest setting that meets the bound, or nullopt with the closest miss in `closest`.
std::optional<CodecSpec> search(const CodecSpec& spec, const PointwiseBound& bound,
                                const TensorMeta& meta, std::span<const std::byte> data,
                                const EncodeOptions& options, double& closest) {
    const auto catalog = codec_catalog();
    const auto entry =
        std::find_if(catalog.begin(), catalog.end(),
                     [&](const CodecCatalogEntry& e) { return e.name == spec.name; });
    if (entry == catalog.end() || !entry->knob.pointwise) {
        std::string codecs;
        for (const CodecCatalogEntry& e : catalog)
            if (e.knob.pointwise) codecs += (codecs.empty() ? "" : " and ") + std::string(e.name);
        fail(ErrorKind::usage, "codec '" + spec.name +
                                   "' has no setting for a pointwise bound; abs= and rel= apply "
                                   "to " +
                                   codecs);
    }
    if (!(bound.value > 0) || !std::isfinite(bound.value)) {
        fail(ErrorKind::usage, "a pointwise bound needs a finite value > 0");
    }
    closest = std::numeric_limits<double>::infinity();
    std::vector<std::byte> decoded(data.size());
    for (const CodecSpec& c : candidates(spec)) {
        try {
            validate_codec_spec(c);
            const EncodedTensor e = encode_tensor(c, meta, data, options);
            decode_tensor(e.codec_id, meta, e.payload, decoded);
        } catch (const Error& e) {
            // A mantissa that makes no ladder for these bits, or values a cast cannot hold.
            if (e.kind() == ErrorKind::usage || e.kind() == ErrorKind::bad_input) continue;
            throw;
        }
        const double excess = pointwise_excess(bound, meta.dtype, data, decoded);
        if (excess <= 1.0) return c;
        closest = std::min(closest, excess);
    }
    return std::nullopt;
}

}  // namespace

CodecSpec choose_pointwise(const CodecSpec& spec, const PointwiseBound& bound,
                           const TensorMeta& meta, std::span<const std::byte> data,
                           const EncodeOptions& options) {
    double closest = 0;
    if (auto chosen = search(spec, bound, meta, data, options, closest)) return *chosen;
    char how[64];
    std::snprintf(how, sizeof how, "%.3g times the bound", closest);
    fail(ErrorKind::usage, meta.name + ": no " + spec.name + " setting keeps every value within " +
                               describe(bound) + " (the closest errs by " +
                               (std::isfinite(closest) ? std::string(how) : "an unbounded factor") +
                               "); use lossless, or a looser bound");
}

std::optional<CodecSpec> find_pointwise(const CodecSpec& spec, const PointwiseBound& bound,
                                        const TensorMeta& meta, std::span<const std::byte> data,
                                        const EncodeOptions& options) {
    double closest = 0;
    return search(spec, bound, meta, data, options, closest);
}

}  // namespace gradcodec
