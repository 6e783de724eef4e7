#include <cerrno>
#include <cstring>
#include <optional>

#include "atomic_output.hpp"
#include "byte_budget.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "device_choice.hpp"
#include "exit_codes.hpp"
#include "gradcodec/gradcodec.hpp"
#include "hdf5_dump.hpp"
#include "output_path.hpp"
#include "stream_io.hpp"

namespace gradcodec::cli {
namespace {

const char* kRawTensorPath = "/data";

std::vector<std::byte> read_raw(const std::string& input, std::uint64_t bytes) {
    FilePtr in = open_input(input);
    std::vector<std::byte> data(bytes);
    const std::size_t got = std::fread(data.data(), 1, data.size(), in.get());
    if (std::ferror(in.get()))
        fail(ErrorKind::io, input + ": read failed: " + std::strerror(errno));
    if (got != bytes || std::fgetc(in.get()) != EOF) {
        fail(ErrorKind::bad_input,
             input + ": the shape needs exactly " + std::to_string(bytes) + " bytes, the input " +
                 (got != bytes ? "holds only " + std::to_string(got) : "holds more"));
    }
    return data;
}

struct Encoder {
    const EncodeArgs& args;
    CodecSpec spec;
    CodecSpec lossless = parse_codec_spec("lossless");
    EncodeOptions options;
    StreamWriter& writer;
    Device device = Device::cpu;
    std::uint64_t matched = 0;

    // A codec that cannot carry non-finite values refuses them even with --allow-nonfinite:
    // the message must not send the user to the flag they already passed.
    EncodedTensor encode_checked(const CodecSpec& chosen, const TensorMeta& meta,
                                 std::span<const std::byte> data) {
        try {
            return encode_on(device, chosen, meta, data, options);
        } catch (const Error& e) {
            const std::string message = e.what();
            const std::size_t hint = message.find(" (--allow-nonfinite");
            if (!args.allow_nonfinite || hint == std::string::npos) throw;
            fail(e.kind(), message.substr(0, hint) + "; codec '" + chosen.name +
                               "' cannot carry them even with --allow-nonfinite (lossless can)");
        }
    }

    void tensor(const std::string& path, DType dtype, std::vector<std::uint64_t> shape,
                std::vector<Attribute> attributes, std::span<const std::byte> data) {
        TensorMeta meta{args.input + ": " + display_name(path), dtype, shape};
        const bool apply = is_float(dtype) && selected(path, args.select);
        matched += apply ? 1 : 0;
        EncodedTensor encoded = encode_checked(apply ? spec : lossless, meta, data);
        writer.write(TensorRecord{path, dtype, std::move(shape), std::move(attributes),
                                  encoded.codec_id, std::move(encoded.spec),
                                  std::move(encoded.payload)});
    }
};

void encode_to(const EncodeArgs& args, const CodecSpec& spec, Device device, ByteSink& sink) {
    StreamWriter writer(sink);
    Encoder encoder{args,   spec,  parse_codec_spec("lossless"), {args.allow_nonfinite},
                    writer, device};
    Progress progress("encode", args.quiet);
    if (!args.raw.empty()) {
        const TensorMeta meta{args.input, parse_raw_dtype(args.raw), parse_shape(args.shape)};
        ByteBudget(args.max_tensor_bytes)
            .check_tensor(args.input, meta.element_count(), dtype_size(meta.dtype));
        const auto data = read_raw(args.input, meta.byte_count());
        encoder.tensor(kRawTensorPath, meta.dtype, meta.shape, {}, data);
    } else {
        Hid file = open_dump(args.input);
        walk_dump(args.input, file.get(),
                  {[&](const GroupRecord& g) { writer.write(g); },
                   [&](const DumpDataset& d) {
                       progress.tick(display_name(d.path));
                       const auto data = d.read(args.input);
                       encoder.tensor(d.path, d.dtype, d.shape, d.attributes, data);
                   },
                   [&](const LinkRecord& l) { writer.write(l); }},
                  DumpLimits{ByteBudget(args.max_tensor_bytes), args.allow_external,
                             args.skip_unsupported});
    }
    writer.finish();
    if (!args.select.empty() && encoder.matched == 0 && !args.quiet) {
        std::fprintf(stderr,
                     "gradcodec: warning: --select matched no float dataset; everything was stored "
                     "lossless\n");
    }
}

}  // namespace

int run_encode(const EncodeArgs& args) {
    const CodecSpec spec = parse_codec_spec(args.codec);
    validate_codec_spec(spec);
    const Device device = choose_device(args.device);
    if (args.raw.empty() != args.shape.empty())
        fail(ErrorKind::usage, "--raw and --shape go together");
    if (!args.raw.empty() && !args.select.empty())
        fail(ErrorKind::usage, "--select applies to HDF5 input only");
    if (check_output_path(args.input, args.output, args.force) == OutputMode::in_place) {
        FilePtr out = open_in_place(args.output, "a binary stream");
        FileSink sink(out.get(), args.output);
        encode_to(args, spec, device, sink);
        finish_in_place(out.get(), args.output);
        return kExitOk;
    }
    AtomicOutput out(args.output, args.force);
    FileSink sink(out.file(), args.output);
    encode_to(args, spec, device, sink);
    out.commit();
    return kExitOk;
}

}  // namespace gradcodec::cli
