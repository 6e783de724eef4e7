#pragma once
// What `inspect` measures per tensor, and how it prints as a table or JSON.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gradcodec/metrics.hpp"

namespace gradcodec::cli {

struct InspectRow {
    std::string name, dtype, shape, codec;
    std::vector<std::uint64_t> dims;  // the shape, for JSON
    std::uint64_t elements = 0, kept = 0, bytes_in = 0, bytes_out = 0;
    std::optional<double> position_bits, value_bits;  // per element, where the codec has them
    std::optional<double> target_density;
    std::optional<ErrorMetrics> metrics;

    double ratio() const { return bytes_out ? double(bytes_in) / double(bytes_out) : 0.0; }
    double bits_per_value() const {
        return elements ? 8.0 * double(bytes_out) / double(elements) : 0.0;
    }
    double density() const { return elements ? double(kept) / double(elements) : 0.0; }
};

struct InspectReport {
    std::string format_version;
    std::vector<InspectRow> tensors;
    // Per HDF5 group (a step) holding tensors: sums over its tensor records; named "GROUP/*".
    std::vector<InspectRow> groups;
    InspectRow total;  // bytes_out counts the whole stream: header, every record, end marker
};

void print_table(const InspectReport& report, bool with_metrics);
void print_json(const InspectReport& report);

}  // namespace gradcodec::cli
