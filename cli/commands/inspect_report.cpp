#include "commands/inspect_report.hpp"

#include "support/cli_support.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace gradcodec::cli {
namespace {

std::string fixed(double v, int digits) {
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (std::isnan(v)) return "nan";
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
    return buffer;
}

std::string general(double v) {
    if (!std::isfinite(v)) return fixed(v, 0);
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.4g", v);
    return buffer;
}

std::string optional_fixed(const std::optional<double>& v, int digits) {
    return v ? fixed(*v, digits) : "-";
}

// JSON has no inf or NaN: those become null.
nlohmann::ordered_json number(double v) {
    return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}
nlohmann::ordered_json optional_number(const std::optional<double>& v) {
    return v ? number(*v) : nlohmann::ordered_json(nullptr);
}

std::vector<std::string> cells(const InspectRow& r, bool with_metrics) {
    std::vector<std::string> c{r.name,
                               r.dtype,
                               r.shape,
                               r.codec,
                               std::to_string(r.elements),
                               std::to_string(r.kept),
                               fixed(r.density(), 4),
                               optional_fixed(r.target_density, 4),
                               std::to_string(r.bytes_in),
                               std::to_string(r.bytes_out),
                               fixed(r.ratio(), 2),
                               fixed(r.bits_per_value(), 3),
                               optional_fixed(r.position_bits, 3),
                               optional_fixed(r.value_bits, 3)};
    if (with_metrics) {
        if (r.metrics) {
            for (double v : {r.metrics->rel_l2, r.metrics->cosine, r.metrics->max_abs,
                             r.metrics->psnr_db, r.metrics->energy_kept})
                c.push_back(general(v));
        } else {
            c.insert(c.end(), 5, "-");
        }
    }
    return c;
}

nlohmann::ordered_json row_json(const InspectRow& r) {
    nlohmann::ordered_json j{{"name", r.name},
                             {"dtype", r.dtype},
                             {"shape", r.dims},
                             {"codec", r.codec},
                             {"elements", r.elements},
                             {"kept", r.kept},
                             {"density", number(r.density())},
                             {"target_density", optional_number(r.target_density)},
                             {"bytes_in", r.bytes_in},
                             {"bytes_out", r.bytes_out},
                             {"ratio", number(r.ratio())},
                             {"bits_per_value", number(r.bits_per_value())},
                             {"position_bits", optional_number(r.position_bits)},
                             {"value_bits", optional_number(r.value_bits)}};
    if (r.metrics) {
        j["metrics"] = {{"rel_l2", number(r.metrics->rel_l2)},
                        {"cosine", number(r.metrics->cosine)},
                        {"max_abs", number(r.metrics->max_abs)},
                        {"psnr_db", number(r.metrics->psnr_db)},
                        {"energy_kept", number(r.metrics->energy_kept)}};
    }
    return j;
}

}  // namespace

void print_table(const InspectReport& report, bool with_metrics) {
    std::vector<std::string> header{"name",  "dtype",      "shape",    "codec",    "elements",
                                    "kept",  "density",    "target",   "bytes_in", "bytes_out",
                                    "ratio", "bits/value", "pos_bits", "val_bits"};
    if (with_metrics)
        header.insert(header.end(), {"rel_l2", "cosine", "max_abs", "psnr_db", "energy_kept"});
    std::vector<std::vector<std::string>> rows{header};
    for (const auto& r : report.tensors) rows.push_back(cells(r, with_metrics));
    for (const auto& r : report.groups) rows.push_back(cells(r, with_metrics));
    rows.push_back(cells(report.total, with_metrics));
    std::vector<std::size_t> width(header.size(), 0);
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
        std::string line;
        for (std::size_t i = 0; i < rows[r].size(); ++i) {
            const bool left = i < 4;  // names left-aligned, numbers right-aligned
            const std::string pad(width[i] - rows[r][i].size(), ' ');
            line += (i ? "  " : "") + (left ? rows[r][i] + pad : pad + rows[r][i]);
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        std::printf("%s\n", printable(line).c_str());
    }
}

void print_json(const InspectReport& report) {
    nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
    for (const auto& r : report.tensors) tensors.push_back(row_json(r));
    nlohmann::ordered_json groups = nlohmann::ordered_json::array();
    for (const auto& r : report.groups) {
        nlohmann::ordered_json g = row_json(r);
        for (const char* key : {"dtype", "shape", "codec"}) g.erase(key);
        groups.push_back(std::move(g));
    }
    nlohmann::ordered_json total = row_json(report.total);
    for (const char* key : {"name", "dtype", "shape", "codec"}) total.erase(key);
    const nlohmann::ordered_json out{{"format_version", report.format_version},
                                     {"tensors", tensors},
                                     {"groups", groups},
                                     {"total", total}};
    // Names are bytes: invalid UTF-8 is shown as U+FFFD rather than aborting the dump.
    std::printf("%s\n",
                out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
}

}  // namespace gradcodec::cli
