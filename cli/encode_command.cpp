#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include "atomic_output.hpp"
#include "buffer_pool.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "device_choice.hpp"
#include "exit_codes.hpp"
#include "gradcodec/gradcodec.hpp"
#include "hdf5_dump.hpp"
#include "ordered_jobs.hpp"
#include "raw_input.hpp"
#include "stream_io.hpp"

namespace gradcodec::cli {
namespace {

const char* kRawTensorPath = "/data";

// A tensor on its way through: read, encoded (on any thread), then written in order.
struct TensorJob {
    std::string path;
    DType dtype;
    std::vector<std::uint64_t> shape;
    std::vector<Attribute> attributes;
    PooledBuffer data;
    EncodedTensor encoded;
};

struct Encoder {
    const EncodeArgs& args;
    CodecSpec spec;
    CodecSpec lossless = parse_codec_spec("lossless");
    bool allow_nonfinite = false;
    StreamWriter& writer;
    Device device = Device::cpu;
    std::uint64_t matched = 0;

    EncodedTensor encode(const std::string& path, DType dtype,
                         const std::vector<std::uint64_t>& shape, std::span<const std::byte> data,
                         unsigned threads) const {
        const TensorMeta meta{args.input + ": " + display_name(path), dtype, shape};
        const bool apply = is_float(dtype) && selected(path, args.select);
        return encode_on(device, apply ? spec : lossless, meta, data,
                         EncodeOptions{allow_nonfinite, threads});
    }

    void write(std::string path, DType dtype, std::vector<std::uint64_t> shape,
               std::vector<Attribute> attributes, EncodedTensor encoded) {
        matched += is_float(dtype) && selected(path, args.select) ? 1 : 0;
        writer.write(TensorRecord{std::move(path), dtype, std::move(shape), std::move(attributes),
                                  encoded.codec_id, std::move(encoded.spec),
                                  std::move(encoded.payload)});
    }
};

void encode_raw(const EncodeArgs& args, Encoder& encoder, unsigned threads) {
    const TensorMeta meta{args.input, parse_raw_dtype(args.raw), parse_shape(args.shape)};
    const RawInput input(args.input, meta.byte_count(), "the shape");
    EncodedTensor encoded =
        encoder.encode(kRawTensorPath, meta.dtype, meta.shape, input.bytes(), threads);
    encoder.write(kRawTensorPath, meta.dtype, meta.shape, {}, std::move(encoded));
}

// Datasets are read one at a time (HDF5 is not thread-safe) and encoded on `threads` threads
// in batches; the GPU path takes tensors one at a time.
void encode_hdf5(const EncodeArgs& args, Encoder& encoder, StreamWriter& writer, unsigned threads) {
    OrderedJobs jobs(encoder.device == Device::cpu ? threads : 1);
    const unsigned per_tensor = encoder.device == Device::cpu ? 1 : threads;
    Progress progress("encode", args.quiet);
    BufferPool buffers;
    Hid file = open_dump(args.input);
    try {
        walk_dump(args.input, file.get(),
                  {[&](const GroupRecord& g) { jobs.add([&writer, g] { writer.write(g); }); },
                   [&](const DumpDataset& d) {
                       progress.tick(display_name(d.path));
                       auto job = std::make_shared<TensorJob>(
                           TensorJob{d.path, d.dtype, d.shape, d.attributes, buffers.take(d.byte_count()), {}});
                       d.read_into(args.input, job->data.bytes());
                       const std::uint64_t bytes = job->data.bytes().size();
                       jobs.add(
                           bytes,
                           [&encoder, job, per_tensor](unsigned t) {
                               job->encoded = encoder.encode(job->path, job->dtype, job->shape, job->data.bytes(),
                                                             std::max(t, per_tensor));
                           },
                           [&encoder, &buffers, job] {
                               buffers.give_back(std::move(job->data));
                               encoder.write(std::move(job->path), job->dtype, std::move(job->shape),
                                             std::move(job->attributes), std::move(job->encoded));
                           });
                   },
                   [&](const LinkRecord& l) { jobs.add([&writer, l] { writer.write(l); }); }});
    } catch (...) {
        jobs.flush();  // an earlier tensor's error comes first, as it would on one thread
        throw;
    }
    jobs.flush();
}

void encode_to(const EncodeArgs& args, const CodecSpec& spec, Device device, ByteSink& sink) {
    StreamWriter writer(sink);
    Encoder encoder{args, spec, parse_codec_spec("lossless"), args.allow_nonfinite, writer, device};
    const unsigned threads = resolve_threads(args.threads);
    if (!args.raw.empty()) {
        encode_raw(args, encoder, threads);
    } else {
        encode_hdf5(args, encoder, writer, threads);
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
