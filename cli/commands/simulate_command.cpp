// gradcodec simulate: the codec run over a dump's steps in order, the way a data-parallel
// trainer would use it, to show what a single-step error hides. With error feedback the part
// of g + r that was not sent, r' = g + r - sent, is carried into the next step, so over many
// steps everything is sent eventually; with --momentum, DGC's momentum correction (the
// velocity is accumulated and sent instead of g) and momentum factor masking (velocity and
// momentum cleared where a value was sent) apply.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "commands/commands.hpp"
#include "gradcodec_hdf5/hdf5_dump.hpp"
#include "support/cli_support.hpp"
#include "support/dump_groups.hpp"
#include "support/exit_codes.hpp"
#include "support/record_bytes.hpp"
#include "support/unit_encoding.hpp"

namespace gradcodec::cli {

using namespace gradcodec::hdf5;  // HDF5 dumps: gradcodec_hdf5_io (hdf5/)
namespace {

// What one parameter carries from step to step.
struct ParameterState {
    std::vector<float> residual;   // error feedback, no momentum: g + r - sent
    std::vector<float> momentum;   // u = M*u + g
    std::vector<float> velocity;   // error feedback with momentum: v += u, cleared where sent
    std::vector<double> dense;     // the dense trainer's update: g, or m = M*m + g
    std::vector<double> sum_diff;  // sum over steps of (sent - dense)
    std::vector<double> sum_dense;
};

struct StepResult {
    std::string step;
    std::uint64_t values = 0, bytes = 0;
    double rel_l2 = 0, drift = 0;
    double bits() const { return values ? 8.0 * double(bytes) / double(values) : 0; }
};

struct Simulation {
    const SimulateArgs& args;
    CodecSpec spec;
    Scope scope;
    bool feedback;
    std::map<std::string, ParameterState> state;  // by dataset name within its step
    std::uint64_t steps_done = 0;

    // A stochastic codec's seed=S is the first step's seed, S + t step t's: reproducible, yet
    // random-k draws new positions every step, as error feedback needs.
    CodecSpec spec_for_step() const {
        const auto seed = spec.get("seed");
        if (!seed) return spec;
        const std::uint64_t first = std::stoull(std::string(*seed));
        return spec.with("seed", std::to_string((first + steps_done) & ~(std::uint64_t{1} << 63)));
    }

    // The values given to the codec are binary32 whatever the dump's dtype: g + r can leave
    // the range of the gradients' type (an f16 65504 not sent, plus the next step's 65504, is
    // 131008). A codec whose values= defaults to f16 (the sparsifiers) could not hold them
    // and would refuse the step: without an explicit values=, such a step keeps f32 values.
    CodecSpec values_that_fit(const CodecSpec& c,
                              const std::vector<std::vector<float>>& inputs) const {
        if (c.get("values")) return c;
        bool beyond_f16 = false;
        for (const auto& a : inputs)
            for (const float v : a) beyond_f16 = beyond_f16 || std::fabs(v) > 65504.0f;
        if (!beyond_f16) return c;
        const CodecSpec wide = c.with("values", "f32");
        try {
            validate_codec_spec(wide);
        } catch (const Error&) {
            return c;  // no values= key: the codec holds binary32 values as they are
        }
        return wide;
    }

    static std::string parameter_name(const std::string& path) {
        return path.substr(path.rfind('/') + 1);
    }

    ParameterState& state_of(const UnitTensor& t, std::size_t n) {
        ParameterState& s = state[parameter_name(t.path)];
        if (s.dense.size() != n) {
            if (!s.dense.empty()) {
                fail(ErrorKind::bad_input, t.meta.name + ": " + std::to_string(n) +
                                               " values, earlier steps had " +
                                               std::to_string(s.dense.size()));
            }
            s.residual.assign(n, 0.0f);
            s.momentum.assign(n, 0.0f);
            s.velocity.assign(n, 0.0f);
            s.dense.assign(n, 0.0);
            s.sum_diff.assign(n, 0.0);
            s.sum_dense.assign(n, 0.0);
        }
        return s;
    }

    // What the worker compresses this step, from the gradient and the carried state.
    std::vector<float> to_send(ParameterState& s, const std::vector<float>& g) const {
        const double m = args.momentum;
        std::vector<float> a(g.size());
        for (std::size_t i = 0; i < g.size(); ++i) {
            s.dense[i] = m > 0 ? m * s.dense[i] + g[i] : g[i];
            if (m > 0) {
                s.momentum[i] = static_cast<float>(m * s.momentum[i] + g[i]);
                if (feedback) s.velocity[i] += s.momentum[i];
                a[i] = feedback ? s.velocity[i] : s.momentum[i];
            } else {
                a[i] = feedback ? g[i] + s.residual[i] : g[i];
            }
        }
        return a;
    }

    void after_send(ParameterState& s, const std::vector<float>& a,
                    const std::vector<float>& sent) const {
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (feedback && args.momentum > 0) {
                if (sent[i] != 0.0f) s.velocity[i] = s.momentum[i] = 0.0f;
            } else if (feedback) {
                s.residual[i] = a[i] - sent[i];
            }
            s.sum_diff[i] += double(sent[i]) - s.dense[i];
            s.sum_dense[i] += s.dense[i];
        }
    }

    double drift() const {
        double diff = 0, total = 0;
        for (const auto& [name, s] : state) {
            for (std::size_t i = 0; i < s.sum_diff.size(); ++i) {
                diff += s.sum_diff[i] * s.sum_diff[i];
                total += s.sum_dense[i] * s.sum_dense[i];
            }
        }
        return total > 0 ? std::sqrt(diff / total) : (diff > 0 ? INFINITY : 0.0);
    }

    StepResult step(const std::string& file, hid_t root, const DumpGroup& g) {
        std::vector<UnitTensor> unit;
        std::vector<std::vector<float>> inputs;
        std::vector<ParameterState*> states;
        for (const UnitTensor& t : g.tensors) {
            const auto bytes = load_tensor(file, root, t);
            const std::vector<float> grad = widen_to_float32(t.meta.dtype, bytes);
            states.push_back(&state_of(t, grad.size()));
            inputs.push_back(to_send(*states.back(), grad));
            unit.push_back({t.path, {t.meta.name, DType::f32, t.meta.shape}, t.attributes});
        }
        const TensorLoader load = [&inputs](std::size_t i) {
            const auto b = std::as_bytes(std::span<const float>(inputs[i]));
            return std::vector<std::byte>(b.begin(), b.end());
        };
        UnitEncoder encoder(values_that_fit(spec_for_step(), inputs), scope, unit, load,
                            EncodeOptions{});
        ++steps_done;
        StepResult r{display_name(g.path)};
        double error = 0, norm = 0;
        for (std::size_t i = 0; i < unit.size(); ++i) {
            const auto data = load(i);
            EncodedTensor e = encoder.encode(unit[i].meta, data);
            std::vector<float> sent(inputs[i].size());
            decode_tensor(e.codec_id, unit[i].meta, e.payload,
                          std::as_writable_bytes(std::span<float>(sent)));
            for (std::size_t j = 0; j < sent.size(); ++j) {
                const double d = double(sent[j]) - states[i]->dense[j];
                error += d * d;
                norm += states[i]->dense[j] * states[i]->dense[j];
            }
            after_send(*states[i], inputs[i], sent);
            r.values += sent.size();
            r.bytes += record_bytes(TensorRecord{unit[i].path, DType::f32, unit[i].meta.shape,
                                                 unit[i].attributes, e.codec_id, std::move(e.spec),
                                                 std::move(e.payload)});
        }
        r.rel_l2 = norm > 0 ? std::sqrt(error / norm) : (error > 0 ? INFINITY : 0.0);
        r.drift = drift();
        return r;
    }
};

nlohmann::ordered_json number(double v) {
    return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

void print_json(const SimulateArgs& args, const CodecSpec& spec,
                const std::vector<StepResult>& steps) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    std::uint64_t values = 0, bytes = 0;
    for (const auto& s : steps) {
        list.push_back({{"step", s.step},
                        {"values", s.values},
                        {"bytes", s.bytes},
                        {"bits_per_value", number(s.bits())},
                        {"rel_l2", number(s.rel_l2)},
                        {"drift", number(s.drift)}});
        values += s.values;
        bytes += s.bytes;
    }
    const nlohmann::ordered_json out{
        {"input", args.input},
        {"codec", spec.to_string()},
        {"scope", args.scope},
        {"error_feedback", args.error_feedback == "on"},
        {"momentum", args.momentum},
        {"steps", list},
        {"total",
         {{"values", values},
          {"bytes", bytes},
          {"bits_per_value", number(values ? 8.0 * double(bytes) / double(values) : 0)},
          {"drift", number(steps.empty() ? 0.0 : steps.back().drift)}}}};
    std::printf("%s\n", out.dump(2).c_str());
}

void print_table(const std::vector<StepResult>& steps) {
    std::printf("%-16s %10s %10s %12s %10s %10s\n", "step", "values", "bytes", "bits/value",
                "rel_l2", "drift");
    for (const auto& s : steps) {
        std::printf("%-16s %10llu %10llu %12.4f %10.4f %10.4f\n", s.step.c_str(),
                    static_cast<unsigned long long>(s.values),
                    static_cast<unsigned long long>(s.bytes), s.bits(), s.rel_l2, s.drift);
    }
}

}  // namespace

int run_simulate(const SimulateArgs& args) {
    const CodecSpec spec = parse_codec_spec(args.codec);
    validate_codec_spec(spec);
    const Scope scope = parse_scope(args.scope);
    if (args.error_feedback != "on" && args.error_feedback != "off") {
        fail(ErrorKind::usage, "--error-feedback " + args.error_feedback + ": expected on or off");
    }
    if (!(args.momentum >= 0 && args.momentum < 1))
        fail(ErrorKind::usage, "--momentum needs a number in [0, 1)");
    Hid file = open_dump(args.input);
    const std::vector<DumpGroup> groups = float_groups(args.input, file.get(), args.select);
    if (groups.empty())
        fail(ErrorKind::bad_input,
             args.input + ": no float dataset" + (args.select.empty() ? "" : " matches --select"));
    Simulation sim{args, spec, scope, args.error_feedback == "on", {}};
    std::vector<StepResult> steps;
    for (const DumpGroup& g : groups) steps.push_back(sim.step(args.input, file.get(), g));
    if (args.json) {
        print_json(args, spec, steps);
    } else {
        print_table(steps);
    }
    return kExitOk;
}

}  // namespace gradcodec::cli
