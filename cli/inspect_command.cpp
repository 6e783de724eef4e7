#include <algorithm>
#include <cstring>

#include "cli_support.hpp"
#include "commands.hpp"
#include "common_values.hpp"
#include "dump_groups.hpp"
#include "exit_codes.hpp"
#include "gradcodec/gradcodec.hpp"
#include "hdf5_dump.hpp"
#include "inspect_report.hpp"
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

}  // namespace

int run_inspect(const InspectArgs& args) {
    FilePtr in = open_input(args.input);
    FileSource source(in.get(), args.input);
    StreamReader reader(source, limits_with(args.max_elements, args.max_record_bytes));
    const Original original(args.against);
    InspectReport report{format_version_string(), {}, {}, {}};
    report.total.name = "total";
    MetricsAccumulator total_metrics;
    bool any_metrics = false;
    std::uint64_t tensors_seen = 0;
    std::vector<GroupSums> groups;
    while (auto record = reader.next()) {
        const auto* t = std::get_if<TensorRecord>(&*record);
        if (!t) continue;
        ++tensors_seen;
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
        std::vector<std::byte> values;
        if (!args.against.empty() && is_float(t->dtype)) {
            values = original.values(*t, tensors_seen);
            MetricsAccumulator m;
            m.add(t->dtype, values, decoded);
            total_metrics.add(t->dtype, values, decoded);
            row.metrics = m.result();
            any_metrics = true;
        }
        add_to_group(groups, t->path, row, row.metrics ? &values : nullptr, decoded, t->dtype);
        report.total.elements += row.elements;
        report.total.kept += row.kept;
        report.total.bytes_in += row.bytes_in;
        add_bit_split(report.total, row);
        report.tensors.push_back(std::move(row));
    }
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
    return kExitOk;
}

}  // namespace gradcodec::cli
