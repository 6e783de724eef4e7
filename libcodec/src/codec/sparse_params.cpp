#include "codec/sparse_params.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "common/spec_params.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec {
namespace {

Selector selector_of(const std::string& name) {
    if (name == "threshold") return Selector::threshold;
    if (name == "dgc") return Selector::dgc;
    if (name == "sidco") return Selector::sidco;
    return Selector::topk;
}

// The largest float <= t, so |x| > float agrees with |x| > t for every float x.
float float_at_most(double t) {
    if (t >= static_cast<double>(std::numeric_limits<float>::max())) {
        return std::numeric_limits<float>::max();
    }
    float f = static_cast<float>(t);
    if (static_cast<double>(f) > t) f = std::nextafter(f, 0.0f);
    return f;
}

int parse_stages(const CodecSpec& spec, SpecParams& p) {
    p.has("stages");
    const auto text = spec.get("stages");
    if (!text || *text == "auto") return 0;
    int v = 0;
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec != std::errc() || end != text->data() + text->size() || v < 1 || v > kSidcoMaxStages) {
        p.invalid("stages", "auto or an integer in 1.." + std::to_string(kSidcoMaxStages));
    }
    return v;
}

}  // namespace

SparseParams parse_sparse_params(const CodecSpec& spec) {
    SpecParams p(spec);
    SparseParams out;
    out.selector = selector_of(spec.name);
    switch (out.selector) {
        case Selector::topk:
            if (p.has("count")) {
                if (spec.get("density")) {
                    fail(ErrorKind::usage, "codec 'topk': give density=D or count=K, not both");
                }
                out.count = static_cast<std::uint64_t>(
                    p.integer("count", 1, 1, std::numeric_limits<std::int64_t>::max()));
            }
            out.density = p.number("density", 0.01, 1e-12, 1.0);
            if (!(out.density > 0)) p.invalid("density", "a number in (0, 1]");
            break;
        case Selector::threshold: {
            const auto v = p.optional_number("value", 0.0, std::numeric_limits<double>::max());
            if (!v)
                fail(ErrorKind::usage, "codec 'threshold' needs value=T (keeps |x| > T, T >= 0)");
            out.threshold = float_at_most(*v);
            out.density = -1;
            break;
        }
        case Selector::dgc:
            out.density = p.number("density", 0.01, 1e-12, 1.0);
            out.dgc.density = out.density;
            out.dgc.sample = p.number("sample", 0.01, 1e-9, 1.0);
            out.dgc.seed = static_cast<std::uint64_t>(
                p.integer("seed", 0, 0, std::numeric_limits<std::int64_t>::max()));
            break;
        case Selector::sidco: {
            const std::string dist = p.choice("dist", "exp", {"exp", "gpareto", "gamma"});
            out.sidco.dist = *parse_distribution(dist);
            out.density = p.number("density", 0.01, 1e-12, 1.0);
            out.sidco.density = out.density;
            out.sidco.stages = parse_stages(spec, p);
            break;
        }
    }
    out.values = parse_value_coder(p, ValueFormat::f16);
    out.zstd = p.choice("zstd", "auto", {"auto", "off"}) == "auto";
    p.finish();
    return out;
}

}  // namespace gradcodec
