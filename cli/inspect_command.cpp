#include <cstring>

#include "cli_support.hpp"
#include "commands.hpp"
#include "common_values.hpp"
#include "exit_codes.hpp"
#include "gradcodec/gradcodec.hpp"
#include "hdf5_dump.hpp"
#include "inspect_report.hpp"
#ifdef GRADCODEC_HAVE_H5Z
#include "inspect_filtered.hpp"
#endif
#include "stream_io.hpp"

namespace gradcodec::cli {
namespace {

// The original values of one tensor: from an HDF5 dump by path, or a raw file holding a
// single tensor in the stream's dtype.
struct Original {
    std::string file;
    Hid hdf5;
    bool raw = false;

    explicit Original(const std::string& path) : file(path) {
        if (path.empty()) return;
        raw = !looks_like_hdf5(path);
        if (!raw) hdf5 = open_dump(path);
    }

    std::vector<std::byte> values(const TensorRecord& t, std::uint64_t tensors_seen) const {
        if (raw) {
            if (tensors_seen > 1) fail(ErrorKind::usage, file + ": a raw --against file fits a single-tensor stream only");
            FilePtr in = open_input(file);
            std::vector<std::byte> data(TensorMeta{t.path, t.dtype, t.shape}.byte_count());
            if (std::fread(data.data(), 1, data.size(), in.get()) != data.size() || std::fgetc(in.get()) != EOF) {
                fail(ErrorKind::bad_input, file + ": does not hold exactly the " + std::to_string(data.size()) +
                                               " bytes of " + display_name(t.path));
            }
            return data;
        }
        DType dtype{};
        std::vector<std::uint64_t> shape;
        auto data = read_dataset_at(file, hdf5.get(), t.path, dtype, shape);
        if (dtype != t.dtype || shape != t.shape) {
            fail(ErrorKind::bad_input, file + ": " + display_name(t.path) + " is " + std::string(dtype_name(dtype)) +
                                           " " + shape_to_string(shape) + ", the stream holds " +
                                           std::string(dtype_name(t.dtype)) + " " + shape_to_string(t.shape));
        }
        return data;
    }
};

void add_bit_split(InspectRow& total, const InspectRow& row) {
    if (!row.position_bits) return;
    const double n = double(row.elements);
    total.position_bits = total.position_bits.value_or(0) + *row.position_bits * n;
    total.value_bits = total.value_bits.value_or(0) + *row.value_bits * n;
}

// Adds one tensor's row to the report, with its metrics against the original when asked.
struct ReportBuilder {
    explicit ReportBuilder(const InspectArgs& inspect_args) : args(inspect_args), original(inspect_args.against) {}

    const InspectArgs& args;
    const Original original;
    InspectReport report{format_version_string(), {}, {}};
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

}  // namespace

int run_inspect(const InspectArgs& args) {
#ifdef GRADCODEC_HAVE_H5Z
    if (looks_like_hdf5(args.input)) {
        ReportBuilder builder{args};
        const std::uint64_t file_bytes =
            inspect_hdf5_file(args.input, [&](InspectedDataset& d) { builder.add(std::move(d.row), d.tensor, d.decoded); });
        return builder.print(file_bytes);
    }
#endif
    FilePtr in = open_input(args.input);
    FileSource source(in.get(), args.input);
    StreamReader reader(source, limits_with(args.max_elements, args.max_record_bytes));
    ReportBuilder builder{args};
    while (auto record = reader.next()) {
        const auto* t = std::get_if<TensorRecord>(&*record);
        if (!t) continue;
        const TensorMeta meta{args.input + ": " + display_name(t->path), t->dtype, t->shape};
        std::vector<std::byte> decoded(meta.byte_count());
        decode_tensor(t->codec_id, meta, t->payload, decoded);
        const PayloadStats stats = describe_payload(t->codec_id, meta, t->payload);
        InspectRow row{display_name(t->path), std::string(dtype_name(t->dtype)), shape_to_string(t->shape),
                       t->codec_spec, t->shape, meta.element_count(),
                       stats.has_carried ? stats.carried : count_nonzero(t->dtype, decoded),
                       meta.byte_count(), reader.last_record_bytes(), {}, {}, {}, {}};
        if (stats.has_bit_split && row.elements) {
            row.position_bits = double(stats.position_bits) / double(row.elements);
            row.value_bits = double(stats.value_bits) / double(row.elements);
        }
        if (stats.target_density >= 0) row.target_density = stats.target_density;
        builder.add(std::move(row), *t, decoded);
    }
    reader.expect_input_end();
    return builder.print(reader.bytes_read());
}

}  // namespace gradcodec::cli
