// repack: the same HDF5 tree with its selected float datasets chunked and filtered by
// gradcodec, so the result stays a plain HDF5 file that any HDF5 reader with the plugin opens.
#include <memory>

#include "commands/commands.hpp"
#include "gradcodec/gradcodec.hpp"
#include "gradcodec_h5z.h"
#include "gradcodec_hdf5/byte_budget.hpp"
#include "gradcodec_hdf5/dump_writer.hpp"
#include "gradcodec_hdf5/hdf5_dump.hpp"
#include "io/atomic_output.hpp"
#include "io/chunk_frames.hpp"
#include "io/filtered_dataset.hpp"
#include "io/output_path.hpp"
#include "support/cli_support.hpp"
#include "support/exit_codes.hpp"
#include "support/ordered_jobs.hpp"

namespace gradcodec::cli {

using namespace gradcodec::hdf5;  // HDF5 dumps: gradcodec_hdf5_io (hdf5/)
namespace {

// Datasets are read one at a time (HDF5 is not thread-safe); their chunks are encoded on many
// threads and written in order, so the file does not depend on the thread count.
struct Repacker {
    const RepackArgs& args;
    const Codec& codec;       // for a batch of small datasets, one thread each
    const Codec& wide_codec;  // for a large dataset alone, with every thread
    DumpWriter& writer;
    OrderedJobs& jobs;
    std::uint64_t matched = 0;

    bool filtered(const DumpDataset& d) const {
        // A scalar has no chunks: HDF5 filters chunked datasets only.
        return is_float(d.dtype) && !d.shape.empty() && selected(d.path, args.select);
    }

    struct Job {
        TensorRecord record;
        std::vector<std::byte> values;
        std::vector<std::uint64_t> chunk_dims;
        std::vector<ChunkFrame> frames;
    };

    void dataset(const DumpDataset& d) {
        auto job = std::make_shared<Job>(
            Job{TensorRecord{d.path, d.dtype, d.shape, d.attributes, 0, "", {}},
                d.read(args.input),
                {},
                {}});
        if (!filtered(d)) {
            jobs.add([this, job] { writer.write(job->record, job->values); });
            return;
        }
        ++matched;
        job->chunk_dims = chunk_dims_for(d.shape, args.chunk);
        const std::string where = args.input + ": " + display_name(d.path);
        jobs.add(
            job->values.size(),
            [this, job, where](unsigned threads) {
                job->frames =
                    encode_chunk_frames(threads > 1 ? wide_codec : codec, job->record.dtype,
                                        job->record.shape, job->chunk_dims, job->values, where);
                job->values = {};
            },
            [this, job, where] { write_filtered(*job, where); });
    }

    void write_filtered(const Job& job, const std::string& where) {
        const h5z::FilterParams params{
            GRADCODEC_H5Z_LAYOUT_VERSION,
            0,
            0,
            0,
            args.allow_nonfinite ? GRADCODEC_H5Z_FLAG_ALLOW_NONFINITE : 0u,
            codec.spec()};
        Hid dcpl = filtered_creation_list(job.chunk_dims, params, where);
        std::vector<DumpWriter::ChunkBytes> chunks;
        for (const ChunkFrame& f : job.frames) chunks.push_back({f.offset, f.frame});
        try {
            writer.write_chunks(job.record, dcpl.get(), chunks);
        } catch (const Error&) {
            const std::string reason = last_filter_error();
            if (reason.empty()) throw;
            fail(ErrorKind::bad_input, where + ": " + reason);
        }
    }
};

// The HDF5 1.10 file format indexes a dataset of one chunk without a B-tree (the 1.8 format
// spends kilobytes per dataset on one), so a repacked dump costs little more than its frames.
// Readers need HDF5 1.10 or later. Without a chunk cache every chunk goes through the filter
// inside H5Dwrite, so a chunk the codec refuses fails that call; a cached chunk would fail
// only when the dataset closes, where the failure cannot be reported.
Hid repack_file_access() {
    start_hdf5();
    Hid fapl = checked(H5Pcreate(H5P_FILE_ACCESS), ErrorKind::io, "repack",
                       "cannot create a property list");
    check_status(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V110, H5F_LIBVER_V110), ErrorKind::io,
                 "repack", "cannot select the HDF5 1.10 file format");
    check_status(H5Pset_cache(fapl.get(), 0, 0, 0, 0.75), ErrorKind::io, "repack",
                 "cannot turn the chunk cache off");
    return fapl;
}

void repack(const RepackArgs& args, const Codec& codec, const Codec& wide_codec,
            const std::string& path) {
    Hid input = open_dump(args.input);
    Hid fapl = repack_file_access();
    // The unnamed output file is reached through /proc/self/fd/N: HDF5's stdio driver follows it.
    if (path.rfind("/proc/self/fd/", 0) == 0) H5Pset_fapl_stdio(fapl.get());
    DumpWriter writer(path, args.output, fapl.get());
    OrderedJobs jobs(resolve_threads(args.threads));
    Repacker repacker{args, codec, wide_codec, writer, jobs};
    Progress progress("repack", args.quiet);
    if (progress.enabled()) progress.set_total(count_datasets(input.get()));
    try {
        walk_dump(args.input, input.get(),
                  {[&](const GroupRecord& g) { jobs.add([&writer, g] { writer.write(g); }); },
                   [&](const DumpDataset& d) {
                       progress.tick(display_name(d.path));
                       repacker.dataset(d);
                   },
                   [&](const LinkRecord& l) { jobs.add([&writer, l] { writer.write(l); }); },
                   [&](const TypedDataset& d) {
                       progress.tick(display_name(d.path));
                       const std::uint64_t cap = ByteBudget().tensor_cap();
                       auto typed = std::make_shared<TypedRecord>(d.read(args.input, cap));
                       jobs.add([&writer, typed, cap] { writer.write(*typed, cap); });
                   }});
    } catch (...) {
        jobs.flush();  // an earlier dataset's error comes first, as it would on one thread
        throw;
    }
    jobs.flush();
    writer.close();
    if (!args.select.empty() && repacker.matched == 0 && !args.quiet) {
        std::fprintf(
            stderr,
            "gradcodec: warning: --select matched no float dataset; nothing was filtered\n");
    }
}

}  // namespace

int run_repack(const RepackArgs& args) {
    const Codec codec = Codec::compile(args.codec, EncodeOptions{args.allow_nonfinite});
    const Codec wide_codec = Codec::compile(
        args.codec, EncodeOptions{args.allow_nonfinite, resolve_threads(args.threads)});
    if (!h5z::codec_runs_per_chunk(codec.id())) {
        fail(ErrorKind::usage,
             "codec " + std::string(codec.name()) +
                 " transforms whole tensors and does not run per HDF5 chunk; use lossless, cast, "
                 "rangeq, "
                 "topk, threshold, dgc or sidco (or gradcodec encode for a stream)");
    }
    if (args.chunk == 0) fail(ErrorKind::usage, "--chunk must be at least 1 element");
    if (args.input == "-" || args.output == "-")
        fail(ErrorKind::usage, "repack reads and writes HDF5 files, not pipes");
    if (check_output_path(args.input, args.output, args.force) == OutputMode::in_place) {
        fail(ErrorKind::usage,
             args.output + ": repack writes a regular HDF5 file, not a device or FIFO");
    }
    register_gradcodec_filter();
    keep_filter_errors();
    AtomicOutput out(args.output, args.force);
    repack(args, codec, wide_codec, out.open_path());
    out.commit();
    return kExitOk;
}

}  // namespace gradcodec::cli
