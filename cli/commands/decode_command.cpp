#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>

#include "commands/commands.hpp"
#include "gradcodec/gradcodec.hpp"
#include "gradcodec_hdf5/byte_budget.hpp"
#include "gradcodec_hdf5/dump_writer.hpp"
#include "gradcodec_hdf5/hdf5_dump.hpp"
#include "io/atomic_output.hpp"
#include "io/buffer_pool.hpp"
#include "io/output_path.hpp"
#include "io/slab_output.hpp"
#include "io/stream_io.hpp"
#include "support/cli_support.hpp"
#include "support/device_choice.hpp"
#include "support/exit_codes.hpp"
#include "support/ordered_jobs.hpp"

namespace gradcodec::cli {

using namespace gradcodec::hdf5;  // HDF5 dumps: gradcodec_hdf5_io (hdf5/)
namespace {

// Every codec writes every byte of `out`, so neither a fresh nor a reused buffer needs clearing.
void decode_values_into(const DecodeArgs& args, const TensorRecord& t, unsigned threads,
                        std::span<std::byte> out) {
    const TensorMeta meta{args.input + ": " + display_name(t.path), t.dtype, t.shape};
    // choose_execution checked the device when the command started.
    const Execution execution = args.device == "cuda" ? Execution::cuda : Execution::cpu;
    decode_tensor(t.codec_id, meta, t.payload, out, DecodeOptions{threads, execution});
}

[[noreturn]] void out_of_memory(const std::string& name, std::uint64_t bytes) {
    fail(ErrorKind::limit, name + ": out of memory for the " + std::to_string(bytes) +
                               " bytes it declares (--max-tensor-bytes caps what decode accepts)");
}

// A tensor's decoded values, in a buffer that a large tensor gets on 2 MiB pages (BufferPool):
// the codec's first touch of each fresh 4 KiB page was a page fault, most of a cast decode.
PooledBuffer decode_values(const DecodeArgs& args, ByteBudget& budget, const TensorRecord& t,
                           BufferPool& buffers) {
    const TensorMeta meta{args.input + ": " + display_name(t.path), t.dtype, t.shape};
    budget.take(meta.name, meta.element_count(), dtype_size(t.dtype));
    PooledBuffer values;
    try {
        values = buffers.take(static_cast<std::size_t>(meta.byte_count()));
    } catch (const std::bad_alloc&) {
        out_of_memory(meta.name, meta.byte_count());
    }
    decode_values_into(args, t, resolve_threads(args.threads), values.bytes());
    return values;
}

// Tensors of more bytes than this (or than --max-tensor-bytes) whose codec decodes in slabs
// (the sparse ones) are decoded and written a slab at a time: their memory is their kept
// values', whatever the size they declare. Smaller ones decode whole, on many threads.
constexpr std::uint64_t kWholeTensorBytes = std::uint64_t{64} << 20;

bool in_slabs(const TensorRecord& t, const TensorMeta& meta, const ByteBudget& budget) {
    if (!decodes_in_slabs(t.codec_id) || t.shape.empty()) return false;
    const std::uint64_t elements = meta.element_count();
    const std::size_t size = dtype_size(t.dtype);
    // Saturating: a size past 64 bits is over every cap, and the budget refuses it by name.
    const std::uint64_t bytes = elements > UINT64_MAX / size ? UINT64_MAX : elements * size;
    return bytes > kWholeTensorBytes || bytes > budget.tensor_cap();
}

// A tensor decoded in slabs counts against --max-total-bytes for its output, and against
// --max-tensor-bytes for the kept values it holds.
void take_slabbed(ByteBudget& budget, const TensorRecord& t, const TensorMeta& meta) {
    budget.take_output(meta.name, meta.element_count(), dtype_size(t.dtype));
    budget.check_memory(meta.name, "decoding it in slabs",
                        SlabDecoder::working_bytes(t.codec_id, meta, t.payload));
}

// --raw: the one tensor's values, written only after the whole stream has checked out (and,
// for a tensor decoded in slabs, its whole payload: SlabDecoder checks it when it is made).
void decode_raw(const DecodeArgs& args, ByteBudget& budget, StreamReader& reader, std::FILE* out) {
    BufferPool buffers;
    std::optional<PooledBuffer> values;
    std::optional<TensorRecord> slabbed;
    while (auto record = reader.next()) {
        auto* t = std::get_if<TensorRecord>(&*record);
        if (!t) continue;
        if (values || slabbed)
            fail(ErrorKind::bad_input,
                 args.input + ": the stream holds more than one tensor; --raw needs exactly one");
        const TensorMeta meta{args.input + ": " + display_name(t->path), t->dtype, t->shape};
        if (in_slabs(*t, meta, budget)) {
            take_slabbed(budget, *t, meta);
            slabbed = std::move(*t);
            continue;
        }
        values = decode_values(args, budget, *t, buffers);
    }
    reader.expect_input_end();
    if (slabbed) {
        TensorMeta meta{args.input + ": " + display_name(slabbed->path), slabbed->dtype,
                        slabbed->shape};
        SlabDecoder decoder(slabbed->codec_id, std::move(meta), slabbed->payload);
        slabbed->payload = {};
        write_raw_slabs(decoder, slabbed->dtype, out, args.output);
        return;
    }
    if (!values)
        fail(ErrorKind::bad_input,
             args.input + ": the stream holds no tensor; --raw needs exactly one");
    const std::span<const std::byte> bytes = values->bytes();
    if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size()) {
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
void decode_hdf5(const DecodeArgs& args, ByteBudget& budget, StreamReader& reader,
                 const std::string& path) {
    DumpWriter writer(path, args.output);
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
            if (auto* d = std::get_if<TypedRecord>(&*record)) {
                progress.tick(display_name(d->path));
                budget.take(args.input + ": " + display_name(d->path), d->data.size(), 1);
                auto typed = std::make_shared<TypedRecord>(std::move(*d));
                jobs.add(
                    [&writer, typed, cap = budget.tensor_cap()] { writer.write(*typed, cap); });
            }
            if (auto* t = std::get_if<TensorRecord>(&*record)) {
                progress.tick(display_name(t->path));
                const TensorMeta meta{args.input + ": " + display_name(t->path), t->dtype,
                                      t->shape};
                if (in_slabs(*t, meta, budget)) {
                    take_slabbed(budget, *t, meta);
                    auto slabbed = std::make_shared<TensorRecord>(std::move(*t));
                    // Decoded on this thread, in turn: it holds a slab, not the tensor.
                    jobs.add(
                        slabbed->payload.size() + kSlabBytes, [](unsigned) {},
                        [&writer, slabbed, name = meta.name] {
                            SlabDecoder decoder(slabbed->codec_id,
                                                TensorMeta{name, slabbed->dtype, slabbed->shape},
                                                slabbed->payload);
                            slabbed->payload = {};
                            write_hdf5_slabs(writer, *slabbed, decoder);
                        });
                    continue;
                }
                budget.take(meta.name, meta.element_count(), dtype_size(t->dtype));
                auto job = std::make_shared<DecodeJob>(DecodeJob{std::move(*t), {}});
                try {
                    job->values = buffers.take(meta.byte_count());
                } catch (const std::bad_alloc&) {
                    out_of_memory(meta.name, meta.byte_count());
                }
                jobs.add(
                    job->record.payload.size() + meta.byte_count(),
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

}  // namespace

int run_decode(const DecodeArgs& args) {
    choose_execution(args.device);
    const OutputMode mode = check_output_path(args.input, args.output, args.force);
    FilePtr in = open_input(args.input);
    FileSource source(in.get(), args.input);
    const auto reader_ptr =
        open_stream(source, args.input, limits_with(args.max_elements, args.max_record_bytes));
    StreamReader& reader = *reader_ptr;
    ByteBudget budget(args.max_tensor_bytes, args.max_total_bytes);
    if (mode == OutputMode::in_place) {
        FilePtr out = open_in_place(args.output, args.raw ? "raw values" : "an HDF5 file");
        if (args.raw) {
            decode_raw(args, budget, reader, out.get());
        } else {
            // HDF5 needs a seekable file: build it in TMPDIR, then stream it out.
            AtomicOutput scratch{AtomicOutput::Scratch{}};
            decode_hdf5(args, budget, reader, scratch.open_path());
            scratch.copy_to(out.get(), args.output);
        }
        finish_in_place(out.get(), args.output);
        return kExitOk;
    }
    AtomicOutput out(args.output, args.force);
    if (args.raw) {
        decode_raw(args, budget, reader, out.file());
    } else {
        decode_hdf5(args, budget, reader, out.open_path());
    }
    out.commit();
    return kExitOk;
}

}  // namespace gradcodec::cli
