#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>

#include "atomic_output.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "device_choice.hpp"
#include "exit_codes.hpp"
#include "gradcodec/gradcodec.hpp"
#include "hdf5_dump.hpp"
#include "stream_io.hpp"
#include "target_search.hpp"
#include "unit_encoding.hpp"

namespace gradcodec::cli {
namespace {

const char* kRawTensorPath = "/data";

std::vector<std::byte> read_raw(const std::string& input, std::uint64_t bytes) {
    FilePtr in = open_input(input);
    std::vector<std::byte> data(bytes);
    const std::size_t got = std::fread(data.data(), 1, data.size(), in.get());
    if (std::ferror(in.get())) fail(ErrorKind::io, input + ": read failed: " + std::strerror(errno));
    if (got != bytes || std::fgetc(in.get()) != EOF) {
        fail(ErrorKind::bad_input, input + ": the shape needs exactly " + std::to_string(bytes) + " bytes, the input " +
                                       (got != bytes ? "holds only " + std::to_string(got) : "holds more"));
    }
    return data;
}

// Under --scope group or --target, the codec's setting and cut are fixed per unit before its
// first tensor is encoded: a step (group scope) or a tensor.
struct UnitPlanner {
    const EncodeArgs& args;
    const CodecSpec& spec;
    Scope scope;
    std::optional<Target> target;
    EncodeOptions options;
    hid_t root = -1;
    std::vector<DumpGroup> groups;  // HDF5 input only
    struct Active {
        std::optional<UnitEncoder> encoder;
        std::size_t left = 0;
    };
    std::map<std::string, Active> active;

    bool plans() const { return scope == Scope::group || target.has_value(); }

    TensorLoader loader(std::span<const UnitTensor> unit) const {
        return [this, unit](std::size_t i) { return load_tensor(args.input, root, unit[i]); };
    }

    CodecSpec chosen_spec(std::span<const UnitTensor> unit, const TensorLoader& load,
                          Scope unit_scope) const {
        if (!target) return spec;
        const TargetChoice choice =
            choose_for_target(spec, *target, unit_scope, unit, load, options);
        if (!args.quiet) {
            std::fprintf(
                stderr, "gradcodec: %s: --target %s chose %s\n",
                unit.size() == 1
                    ? unit[0].meta.name.c_str()
                    : (args.input + ": " + display_name(parent_group(unit[0].path))).c_str(),
                target->text.c_str(), choice.summary.c_str());
        }
        return choice.spec;
    }

    // A tensor held in memory as its own unit (tensor scope, raw input, pointwise targets).
    EncodedTensor encode_alone(const UnitTensor& t, std::span<const std::byte> data,
                               Device device) const {
        const TensorLoader from_memory = [data](std::size_t) {
            return std::vector<std::byte>(data.begin(), data.end());
        };
        const std::span<const UnitTensor> unit(&t, 1);
        const CodecSpec chosen = chosen_spec(unit, from_memory, Scope::tensor);
        if (scope == Scope::group && has_group_scope(chosen)) {
            return UnitEncoder(chosen, Scope::group, unit, from_memory, options)
                .encode(t.meta, data);
        }
        return encode_on(device, chosen, t.meta, data, options);
    }

    EncodedTensor encode(const UnitTensor& t, std::span<const std::byte> data, Device device) {
        const bool per_tensor =
            scope == Scope::tensor || (target && is_pointwise(*target)) || groups.empty();
        if (per_tensor) return encode_alone(t, data, device);
        const std::string group = parent_group(t.path);
        auto it = active.find(group);
        if (it == active.end()) {
            const auto g = std::find_if(groups.begin(), groups.end(),
                                        [&](const DumpGroup& d) { return d.path == group; });
            if (g == groups.end())
                fail(ErrorKind::bad_input,
                     args.input + ": " + t.path + " appeared during the walk");
            const TensorLoader load = loader(g->tensors);
            const CodecSpec chosen = chosen_spec(g->tensors, load, Scope::group);
            it = active.emplace(group, Active{}).first;
            it->second.encoder.emplace(chosen, Scope::group, g->tensors, load, options);
            it->second.left = g->tensors.size();
        }
        EncodedTensor e = it->second.encoder->encode(t.meta, data);
        if (--it->second.left == 0) active.erase(it);
        return e;
    }
};

struct Encoder {
    const EncodeArgs& args;
    CodecSpec spec;
    CodecSpec lossless = parse_codec_spec("lossless");
    EncodeOptions options;
    StreamWriter& writer;
    Device device = Device::cpu;
    UnitPlanner& planner;
    std::uint64_t matched = 0;

    void tensor(const std::string& path, DType dtype, std::vector<std::uint64_t> shape,
                std::vector<Attribute> attributes, std::span<const std::byte> data) {
        TensorMeta meta{args.input + ": " + display_name(path), dtype, shape};
        const bool apply = is_float(dtype) && selected(path, args.select);
        matched += apply ? 1 : 0;
        EncodedTensor encoded =
            apply && planner.plans()
                ? planner.encode(UnitTensor{path, meta, attributes}, data, device)
                : encode_on(device, apply ? spec : lossless, meta, data, options);
        writer.write(TensorRecord{path, dtype, std::move(shape), std::move(attributes), encoded.codec_id,
                                  std::move(encoded.spec), std::move(encoded.payload)});
    }
};

void encode_to(const EncodeArgs& args, const CodecSpec& spec, Device device, ByteSink& sink) {
    StreamWriter writer(sink);
    const EncodeOptions options{args.allow_nonfinite};
    UnitPlanner planner{args, spec, parse_scope(args.scope), std::nullopt, options, -1, {}, {}};
    if (!args.target.empty()) planner.target = parse_target(args.target);
    Encoder encoder{args, spec, parse_codec_spec("lossless"), options, writer, device, planner};
    Progress progress("encode", args.quiet);
    if (!args.raw.empty()) {
        const TensorMeta meta{args.input, parse_raw_dtype(args.raw), parse_shape(args.shape)};
        const auto data = read_raw(args.input, meta.byte_count());
        encoder.tensor(kRawTensorPath, meta.dtype, meta.shape, {}, data);
    } else {
        Hid file = open_dump(args.input);
        if (planner.plans()) {
            planner.root = file.get();
            planner.groups = float_groups(args.input, file.get(), args.select);
        }
        walk_dump(args.input, file.get(),
                  {[&](const GroupRecord& g) { writer.write(g); },
                   [&](const DumpDataset& d) {
                       progress.tick(display_name(d.path));
                       const auto data = d.read(args.input);
                       encoder.tensor(d.path, d.dtype, d.shape, d.attributes, data);
                   },
                   [&](const LinkRecord& l) { writer.write(l); }});
    }
    writer.finish();
    if (!args.select.empty() && encoder.matched == 0 && !args.quiet) {
        std::fprintf(stderr, "gradcodec: warning: --select matched no float dataset; everything was stored lossless\n");
    }
}

}  // namespace

int run_encode(const EncodeArgs& args) {
    const CodecSpec spec = parse_codec_spec(args.codec);
    validate_codec_spec(spec);
    parse_scope(args.scope);
    if (!args.target.empty()) check_target_applies(spec, parse_target(args.target));
    const Device device = choose_device(args.device);
    if (args.raw.empty() != args.shape.empty()) fail(ErrorKind::usage, "--raw and --shape go together");
    if (!args.raw.empty() && !args.select.empty()) fail(ErrorKind::usage, "--select applies to HDF5 input only");
    check_output_path(args.input, args.output, args.force);
    refuse_terminal_output(args.output, "a binary stream");
    if (args.output == "-") {
        FileSink sink(stdout, "-");
        encode_to(args, spec, device, sink);
        if (std::fflush(stdout) != 0) fail(ErrorKind::io, std::string("-: write failed: ") + std::strerror(errno));
        return kExitOk;
    }
    AtomicOutput out(args.output);
    FileSink sink(out.file(), args.output);
    encode_to(args, spec, device, sink);
    out.commit();
    return kExitOk;
}

}  // namespace gradcodec::cli
