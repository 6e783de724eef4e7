#include <algorithm>
#include <cstring>
#include <memory>

#include "commands/commands.hpp"
#include "commands/inspect_report.hpp"
#include "gradcodec/gradcodec.hpp"
#include "gradcodec_hdf5/byte_budget.hpp"
#include "gradcodec_hdf5/hdf5_dump.hpp"
#include "gradcodec_hdf5/hdf5_type_message.hpp"
#include "support/cli_support.hpp"
#include "support/common_values.hpp"
#include "support/dump_groups.hpp"
#include "support/exit_codes.hpp"
#ifdef GRADCODEC_HAVE_H5Z
#include "commands/inspect_filtered.hpp"
#endif
#include "io/raw_input.hpp"
#include "io/stream_io.hpp"
#include "support/ordered_jobs.hpp"

namespace gradcodec::cli {

using namespace gradcodec::hdf5;  // HDF5 dumps: gradcodec_hdf5_io (hdf5/)
namespace {

// The original values of one tensor: from an HDF5 dump by path, or a raw file holding a
// single tensor in the stream's dtype.
struct Original {
    std::string file;
    DumpLimits limits;
    Hid hdf5;
    bool raw = false;

    Original(const std::string& path, DumpLimits dump_limits)
        : file(path), limits(std::move(dump_limits)) {
        if (path.empty()) return;
        raw = !looks_like_hdf5(path);
        if (!raw) hdf5 = open_dump(path);
    }

    std::vector<std::byte> values(const TensorRecord& t, std::uint64_t tensors_seen) const {
        if (raw) {
            if (tensors_seen > 1)
                fail(ErrorKind::usage,
                     file + ": a raw --against file fits a single-tensor stream only");
            const RawInput in(file, TensorMeta{t.path, t.dtype, t.shape}.byte_count(),
                              display_name(t.path));
            return {in.bytes().begin(), in.bytes().end()};
        }
        DType dtype{};
        std::vector<std::uint64_t> shape;
        auto data = read_dataset_at(file, hdf5.get(), t.path, dtype, shape, limits);
        if (dtype != t.dtype || shape != t.shape) {
            fail(ErrorKind::bad_input,
                 file + ": " + display_name(t.path) + " is " + std::string(dtype_name(dtype)) +
                     " " + shape_to_string(shape) + ", the stream holds " +
                     std::string(dtype_name(t.dtype)) + " " + shape_to_string(t.shape));
        }
        return data;
    }
};

// One tensor's row: decoded, described and measured on any thread.
struct InspectJob {
    TensorRecord record;
    std::uint64_t record_bytes = 0;
    bool with_metrics = false;
    std::vector<std::byte> original;
    std::vector<std::byte> decoded;
    InspectRow row;

    void run(const TensorMeta& meta, unsigned threads) {
        const TensorRecord& t = record;
        decoded.resize(meta.byte_count());
        decode_tensor(t.codec_id, meta, t.payload, decoded, DecodeOptions{threads});
        const PayloadStats stats = describe_payload(t.codec_id, meta, t.payload);
        row = InspectRow{display_name(t.path),
                         std::string(dtype_name(t.dtype)),
                         shape_to_string(t.shape),
                         t.codec_spec,
                         t.shape,
                         meta.element_count(),
                         stats.has_carried ? stats.carried : count_nonzero(t.dtype, decoded),
                         meta.byte_count(),
                         record_bytes,
                         {},
                         {},
                         {},
                         {}};
        if (stats.has_bit_split && row.elements) {
            row.position_bits = double(stats.position_bits) / double(row.elements);
            row.value_bits = double(stats.value_bits) / double(row.elements);
        }
        if (stats.target_density >= 0) row.target_density = stats.target_density;
        if (with_metrics) {
            MetricsAccumulator m;
            m.add(t.dtype, original, decoded);
            row.metrics = m.result();
        }
    }
};

// A typed dataset's row: its HDF5 type in brief (the description is checked as decode checks
// it), its elements, and its data stored as it is.
InspectRow typed_row(const std::string& file, const TypedRecord& d, std::uint64_t record_bytes) {
    const std::string where = file + ": " + display_name(d.path);
    const Hid type = decode_type(d.type, where);
    std::uint64_t elements = 1;
    for (auto dim : d.shape) {
        if (dim != 0 && elements > UINT64_MAX / dim)
            fail(ErrorKind::damaged_stream, where + ": shape overflows 64 bits");
        elements *= dim;
    }
    return InspectRow{display_name(d.path),
                      "hdf5 " + type_summary(type.get()),
                      shape_to_string(d.shape),
                      "typed",
                      d.shape,
                      elements,
                      elements,
                      d.data.size(),
                      record_bytes,
                      {},
                      {},
                      {},
                      {}};
}

void add_bit_split(InspectRow& total, const InspectRow& row) {
    if (!row.position_bits) return;
    const double n = double(row.elements);
    total.position_bits = total.position_bits.value_or(0) + *row.position_bits * n;
    total.value_bits = total.value_bits.value_or(0) + *row.value_bits * n;
}

// The running sums of one group's tensors; bit splits and metrics are finished at the end.
struct GroupSums {
    InspectRow row;
    MetricsAccumulator metrics;
    bool any_metrics = false;
};

void add_to_group(std::vector<GroupSums>& groups, const std::string& path, const InspectRow& row,
                  const std::vector<std::byte>* original, const std::vector<std::byte>& decoded,
                  DType dtype) {
    const std::string name =
        display_name(parent_group(path)) + (parent_group(path) == "/" ? "*" : "/*");
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const GroupSums& g) { return g.row.name == name; });
    if (it == groups.end()) {
        it = groups.insert(groups.end(), GroupSums{});
        it->row.name = name;
        it->row.dtype = it->row.shape = it->row.codec = "";
    }
    it->row.elements += row.elements;
    it->row.kept += row.kept;
    it->row.bytes_in += row.bytes_in;
    it->row.bytes_out += row.bytes_out;
    add_bit_split(it->row, row);
    if (original) {
        it->metrics.add(dtype, *original, decoded);
        it->any_metrics = true;
    }
}

void finish_bit_split(InspectRow& row) {
    if (row.position_bits && row.elements) {
        *row.position_bits /= double(row.elements);
        *row.value_bits /= double(row.elements);
    }
}

#ifdef GRADCODEC_HAVE_H5Z
// For a repacked HDF5 file (its chunks are frames): adds one tensor's row to the report, with its
// metrics against the original when asked.
struct ReportBuilder {
    explicit ReportBuilder(const InspectArgs& inspect_args)
        : args(inspect_args),
          original(inspect_args.against, DumpLimits{ByteBudget(inspect_args.max_tensor_bytes),
                                                    inspect_args.allow_external}) {}

    const InspectArgs& args;
    const Original original;
    InspectReport report{format_version_string(), {}, {}, {}};
    MetricsAccumulator total_metrics;
    bool any_metrics = false;
    std::uint64_t tensors_seen = 0;

    void add(InspectRow row, const TensorRecord& t, std::span<const std::byte> decoded) {
        ++tensors_seen;
        if (!args.against.empty() && is_float(t.dtype)) {
            const auto values = original.values(t, tensors_seen);
            MetricsAccumulator m;
            m.add(t.dtype, values, decoded);
            total_metrics.add(t.dtype, values, decoded);
            row.metrics = m.result();
            any_metrics = true;
        }
        report.total.elements += row.elements;
        report.total.kept += row.kept;
        report.total.bytes_in += row.bytes_in;
        add_bit_split(report.total, row);
        report.tensors.push_back(std::move(row));
    }

    int print(std::uint64_t total_bytes) {
        report.total.name = "total";
        report.total.bytes_out = total_bytes;
        if (report.total.position_bits && report.total.elements) {
            *report.total.position_bits /= double(report.total.elements);
            *report.total.value_bits /= double(report.total.elements);
        }
        if (any_metrics) report.total.metrics = total_metrics.result();
        if (args.json) {
            print_json(report);
        } else {
            print_table(report, !args.against.empty());
        }
        return kExitOk;
    }
};

#endif

}  // namespace

int run_inspect(const InspectArgs& args) {
#ifdef GRADCODEC_HAVE_H5Z
    if (looks_like_hdf5(args.input)) {
        ReportBuilder builder{args};
        const std::uint64_t file_bytes = inspect_hdf5_file(args.input, [&](InspectedDataset& d) {
            builder.add(std::move(d.row), d.tensor, d.decoded);
        });
        const int status = builder.print(file_bytes);
        finish_stdout();
        return status;
    }
#endif
    FilePtr in = open_input(args.input);
    FileSource source(in.get(), args.input);
    const auto reader_ptr =
        open_stream(source, args.input, limits_with(args.max_elements, args.max_record_bytes));
    StreamReader& reader = *reader_ptr;
    ByteBudget budget(args.max_tensor_bytes);
    const Original original(args.against, DumpLimits{budget, args.allow_external});
    InspectReport report{format_version_string(), {}, {}, {}};
    report.total.name = "total";
    MetricsAccumulator total_metrics;
    bool any_metrics = false;
    std::uint64_t tensors_seen = 0;
    std::vector<GroupSums> groups;
    OrderedJobs jobs(resolve_threads(args.threads));
    try {
        while (auto record = reader.next()) {
            if (const auto* d = std::get_if<TypedRecord>(&*record)) {
                InspectRow row = typed_row(args.input, *d, reader.last_record_bytes());
                jobs.add([&, row, path = d->path] {
                    report.total.elements += row.elements;
                    report.total.kept += row.kept;
                    report.total.bytes_in += row.bytes_in;
                    add_to_group(groups, path, row, nullptr, {}, DType::u8);
                    report.tensors.push_back(row);
                });
                continue;
            }
            auto* t = std::get_if<TensorRecord>(&*record);
            if (!t) continue;
            ++tensors_seen;
            budget.check_tensor(args.input + ": " + display_name(t->path),
                                TensorMeta{"", t->dtype, t->shape}.element_count(),
                                dtype_size(t->dtype));
            auto job = std::make_shared<InspectJob>();
            job->record = std::move(*t);
            job->record_bytes = reader.last_record_bytes();
            job->with_metrics = !args.against.empty() && is_float(job->record.dtype);
            if (job->with_metrics) job->original = original.values(job->record, tensors_seen);
            const TensorMeta meta{args.input + ": " + display_name(job->record.path),
                                  job->record.dtype, job->record.shape};
            jobs.add(
                job->record.payload.size() + 2 * meta.byte_count(),
                [job, meta](unsigned threads) { job->run(meta, threads); },
                [&, job] {
                    if (job->with_metrics) {
                        total_metrics.add(job->record.dtype, job->original, job->decoded);
                        any_metrics = true;
                    }
                    report.total.elements += job->row.elements;
                    report.total.kept += job->row.kept;
                    report.total.bytes_in += job->row.bytes_in;
                    add_bit_split(report.total, job->row);
                    add_to_group(groups, job->record.path, job->row,
                                 job->row.metrics ? &job->original : nullptr, job->decoded,
                                 job->record.dtype);
                    report.tensors.push_back(std::move(job->row));
                });
        }
    } catch (...) {
        jobs.flush();  // an earlier tensor's error comes first, as it would on one thread
        throw;
    }
    jobs.flush();
    reader.expect_input_end();
    report.total.bytes_out = reader.bytes_read();
    finish_bit_split(report.total);
    for (GroupSums& g : groups) {
        finish_bit_split(g.row);
        if (g.any_metrics) g.row.metrics = g.metrics.result();
        report.groups.push_back(std::move(g.row));
    }
    if (any_metrics) report.total.metrics = total_metrics.result();
    if (args.json) {
        print_json(report);
    } else {
        print_table(report, !args.against.empty());
    }
    finish_stdout();
    return kExitOk;
}

}  // namespace gradcodec::cli
