#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
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
#include "stream_io.hpp"

namespace gradcodec::cli {
namespace {

// Every codec writes every byte of `out`, so a reused buffer needs no clearing.
void decode_values_into(const DecodeArgs& args, const TensorRecord& t, unsigned threads, std::span<std::byte> out) {
    const TensorMeta meta{args.input + ": " + display_name(t.path), t.dtype, t.shape};
    // choose_device checked the device when the command started.
    decode_on(args.device == "cuda" ? Device::cuda : Device::cpu, t.codec_id, meta, t.payload, out,
              DecodeOptions{threads});
}

std::vector<std::byte> decode_values(const DecodeArgs& args, const TensorRecord& t, unsigned threads) {
    std::vector<std::byte> values(TensorMeta{"", t.dtype, t.shape}.byte_count());
    decode_values_into(args, t, threads, values);
    return values;
}

// --raw: the one tensor's values, written only after the whole stream has checked out.
void decode_raw(const DecodeArgs& args, StreamReader& reader, std::FILE* out) {
    std::optional<std::vector<std::byte>> values;
    while (auto record = reader.next()) {
        const auto* t = std::get_if<TensorRecord>(&*record);
        if (!t) continue;
        if (values) fail(ErrorKind::usage, args.input + ": the stream holds more than one tensor; --raw needs exactly one");
        values = decode_values(args, *t, resolve_threads(args.threads));
    }
    reader.expect_input_end();
    if (!values) fail(ErrorKind::usage, args.input + ": the stream holds no tensor");
    if (std::fwrite(values->data(), 1, values->size(), out) != values->size()) {
        fail(ErrorKind::io, args.output + ": write failed: " + std::strerror(errno));
    }
}

// A tensor record and its values: decoded on any thread, written to HDF5 in stream order.
struct DecodeJob {
    TensorRecord record;
    PooledBuffer values;
};

// Records are read one at a time and decoded on `threads` threads in batches; the GPU path
// takes tensors one at a time. HDF5 is written from this thread only.
void decode_hdf5(const DecodeArgs& args, StreamReader& reader, const std::string& path) {
    DumpWriter writer(path);
    Progress progress("decode", args.quiet);
    const unsigned threads = resolve_threads(args.threads);
    const bool on_cpu = args.device != "cuda";
    OrderedJobs jobs(on_cpu ? threads : 1);
    BufferPool buffers;
    try {
        while (auto record = reader.next()) {
            if (const auto* g = std::get_if<GroupRecord>(&*record))
                jobs.add([&writer, g = *g] { writer.write(g); });
            if (const auto* l = std::get_if<LinkRecord>(&*record))
                jobs.add([&writer, l = *l] { writer.write(l); });
            if (auto* t = std::get_if<TensorRecord>(&*record)) {
                progress.tick(display_name(t->path));
                auto job = std::make_shared<DecodeJob>(DecodeJob{std::move(*t), {}});
                job->values = buffers.take(TensorMeta{"", job->record.dtype, job->record.shape}.byte_count());
                const std::uint64_t bytes =
                    job->record.payload.size() +
                    TensorMeta{"", job->record.dtype, job->record.shape}.byte_count();
                jobs.add(
                    bytes,
                    [&args, job, per_tensor = on_cpu ? 1 : threads](unsigned job_threads) {
                        decode_values_into(args, job->record, std::max(job_threads, per_tensor),
                                           job->values.bytes());
                        job->record.payload = {};
                    },
                    [&writer, &buffers, job] {
                        writer.write(job->record, job->values.bytes());
                        buffers.give_back(std::move(job->values));
                    });
            }
        }
        reader.expect_input_end();
    } catch (...) {
        jobs.flush();  // an earlier tensor's error comes first, as it would on one thread
        throw;
    }
    jobs.flush();
    writer.close();
}

void copy_file_to_stdout(const std::string& path) {
    FilePtr in = open_input(path);
    char buffer[1 << 16];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, in.get())) > 0) {
        if (std::fwrite(buffer, 1, n, stdout) != n) fail(ErrorKind::io, std::string("-: write failed: ") + std::strerror(errno));
    }
    if (std::fflush(stdout) != 0) fail(ErrorKind::io, std::string("-: write failed: ") + std::strerror(errno));
}

}  // namespace

int run_decode(const DecodeArgs& args) {
    choose_device(args.device);
    check_output_path(args.input, args.output, args.force);
    refuse_terminal_output(args.output, args.raw ? "raw values" : "an HDF5 file");
    FilePtr in = open_input(args.input);
    FileSource source(in.get(), args.input);
    StreamReader reader(source, limits_with(args.max_elements, args.max_record_bytes));
    if (args.raw && args.output == "-") {
        decode_raw(args, reader, stdout);
        if (std::fflush(stdout) != 0) fail(ErrorKind::io, std::string("-: write failed: ") + std::strerror(errno));
        return kExitOk;
    }
    if (args.output == "-") {
        // HDF5 needs a seekable file: build it in TMPDIR, then stream it out.
        const char* tmpdir = std::getenv("TMPDIR");
        AtomicOutput scratch(std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/gradcodec-decode");
        decode_hdf5(args, reader, scratch.temp_path());
        copy_file_to_stdout(scratch.temp_path());
        return kExitOk;
    }
    AtomicOutput out(args.output);
    if (args.raw) {
        decode_raw(args, reader, out.file());
    } else {
        decode_hdf5(args, reader, out.temp_path());
    }
    out.commit();
    return kExitOk;
}

}  // namespace gradcodec::cli
