// gradcodec sweep: every codec of a list encodes and decodes the dump in memory, one step at
// a time; the table (or JSON, CSV) and the plot answer "which codec for my gradients".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "gradcodec_hdf5/hdf5_dump.hpp"
#include "io/atomic_output.hpp"
#include "io/output_path.hpp"
#include "support/cli_support.hpp"
#include "support/dump_groups.hpp"
#include "support/exit_codes.hpp"
#include "support/ordered_jobs.hpp"
#include "support/svg_plot.hpp"
#include "support/unit_encoding.hpp"

namespace gradcodec::cli {

using namespace gradcodec::hdf5;  // HDF5 dumps: gradcodec_hdf5_io (hdf5/)
namespace {

// Every family at several rates, from about 0.05 to 32 bits per value.
constexpr const char* kDefaultCodecs =
    "lossless;cast:to=bf16;rangeq:bits=4;rangeq:bits=6;rangeq:bits=8;rangeq:bits=12;"
    "topk:density=0.001;topk:density=0.01;topk:density=0.1;"
    "dgc:density=0.001;dgc:density=0.01;dgc:density=0.1;"
    "sidco:density=0.001;sidco:density=0.01;sidco:density=0.1;"
    "fft:density=0.01;fft:density=0.05;fft:density=0.15;"
    "dct:density=0.01;dct:density=0.05;dct:density=0.15;"
    "randomk:density=0.01;randomk:density=0.1;"
    "qsgd:levels=1;qsgd:levels=4;qsgd:levels=16;terngrad;"
    "sign;onebit;natural;"
    "lowrank:rank=1;lowrank:rank=4;lowrank:rank=16";

std::vector<CodecSpec> parse_codec_list(const std::string& text) {
    std::vector<CodecSpec> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = std::min(text.find(';', start), text.size());
        std::string item = text.substr(start, end - start);
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (!item.empty()) {
            out.push_back(parse_codec_spec(item));
            validate_codec_spec(out.back());
        }
        start = end + 1;
    }
    if (out.empty()) fail(ErrorKind::usage, "--codecs: no codec spec given");
    return out;
}

struct Row {
    CodecSpec spec;
    std::uint64_t elements = 0, bytes_in = 0, record_bytes = 0;
    double sq_error = 0, sq_original = 0, sq_decoded = 0, product = 0;
    double encode_seconds = 0, decode_seconds = 0;
    bool grouped = false;
    bool pareto = false;
    std::string refused{};  // why the codec refused a tensor: the row has no figures then

    void add(const UnitMeasure& m) {
        elements += m.elements;
        bytes_in += m.bytes_in;
        record_bytes += m.record_bytes;
        sq_error += m.metrics.sum_sq_error;
        sq_original += m.metrics.sum_sq_original;
        sq_decoded += m.metrics.sum_sq_decoded;
        product += m.metrics.sum_product;
        encode_seconds += m.encode_seconds;
        decode_seconds += m.decode_seconds;
    }
    double bits() const { return elements ? 8.0 * double(record_bytes) / double(elements) : 0; }
    double ratio() const { return record_bytes ? double(bytes_in) / double(record_bytes) : 0; }
    double rel_l2() const {
        if (sq_original > 0) return std::sqrt(sq_error / sq_original);
        return sq_error > 0 ? INFINITY : 0.0;
    }
    double cosine() const {
        if (sq_original == 0 && sq_decoded == 0) return 1.0;
        if (sq_original == 0 || sq_decoded == 0) return 0.0;
        return product / std::sqrt(sq_original * sq_decoded);
    }
    double encode_mb_s() const {
        return encode_seconds > 0 ? double(bytes_in) / 1e6 / encode_seconds : 0;
    }
    double decode_mb_s() const {
        return decode_seconds > 0 ? double(bytes_in) / 1e6 / decode_seconds : 0;
    }
};

// On the front when no other row is at most as large and at most as wrong, and better in one.
void mark_pareto(std::vector<Row>& rows) {
    for (auto& r : rows) {
        r.pareto = r.refused.empty() && std::none_of(rows.begin(), rows.end(), [&](const Row& o) {
                       return o.refused.empty() && o.bits() <= r.bits() &&
                              o.rel_l2() <= r.rel_l2() &&
                              (o.bits() < r.bits() || o.rel_l2() < r.rel_l2());
                   });
    }
}

std::string fmt(const char* format, double v) {
    char b[64];
    std::snprintf(b, sizeof b, format, v);
    return b;
}

nlohmann::ordered_json number(double v) {
    return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

void print_table(const std::vector<Row>& rows) {
    std::vector<std::vector<std::string>> cells{{"codec", "scope", "bits/value", "ratio", "rel_l2",
                                                 "cosine", "enc_MB/s", "dec_MB/s", "pareto"}};
    for (const auto& r : rows) {
        if (!r.refused.empty()) {  // the reason fills the line after the codec and scope
            cells.push_back({r.spec.to_string(), r.grouped ? "group" : "tensor",
                             "refused: " + printable(r.refused)});
            continue;
        }
        cells.push_back({r.spec.to_string(), r.grouped ? "group" : "tensor", fmt("%.4f", r.bits()),
                         fmt("%.2f", r.ratio()), fmt("%.4g", r.rel_l2()), fmt("%.6f", r.cosine()),
                         fmt("%.1f", r.encode_mb_s()), fmt("%.1f", r.decode_mb_s()),
                         r.pareto ? "*" : ""});
    }
    std::vector<std::size_t> width(cells[0].size(), 0);
    for (const auto& row : cells) {
        const std::size_t columns = row.size() == width.size() ? row.size() : 2;
        for (std::size_t i = 0; i < columns; ++i) width[i] = std::max(width[i], row[i].size());
    }
    for (const auto& row : cells) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            const std::size_t w = row.size() == width.size() || i < 2 ? width[i] : 0;
            const std::string pad(w - std::min(w, row[i].size()), ' ');
            line += (i ? "  " : "") + (i < 2 || w == 0 ? row[i] + pad : pad + row[i]);
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        std::printf("%s\n", line.c_str());
    }
}

void print_csv(const std::vector<Row>& rows) {
    std::printf("codec,scope,bits_per_value,ratio,rel_l2,cosine,encode_mb_s,decode_mb_s,pareto\n");
    for (const auto& r : rows) {
        if (!r.refused.empty()) {  // no figures: empty fields, the reason on stderr
            std::printf("\"%s\",%s,,,,,,,0\n", r.spec.to_string().c_str(),
                        r.grouped ? "group" : "tensor");
            continue;
        }
        std::printf("\"%s\",%s,%.6g,%.6g,%.6g,%.9g,%.6g,%.6g,%d\n", r.spec.to_string().c_str(),
                    r.grouped ? "group" : "tensor", r.bits(), r.ratio(), r.rel_l2(), r.cosine(),
                    r.encode_mb_s(), r.decode_mb_s(), r.pareto ? 1 : 0);
    }
}

void print_json(const SweepArgs& args, const std::vector<Row>& rows) {
    nlohmann::ordered_json codecs = nlohmann::ordered_json::array();
    const Row* measured = nullptr;
    for (const auto& r : rows) {
        if (!r.refused.empty()) {
            codecs.push_back({{"codec", r.spec.to_string()},
                              {"family", r.spec.name},
                              {"scope", r.grouped ? "group" : "tensor"},
                              {"refused", r.refused}});
            continue;
        }
        if (!measured) measured = &r;
        codecs.push_back({{"codec", r.spec.to_string()},
                          {"family", r.spec.name},
                          {"scope", r.grouped ? "group" : "tensor"},
                          {"bits_per_value", number(r.bits())},
                          {"ratio", number(r.ratio())},
                          {"rel_l2", number(r.rel_l2())},
                          {"cosine", number(r.cosine())},
                          {"encode_mb_s", number(r.encode_mb_s())},
                          {"decode_mb_s", number(r.decode_mb_s())},
                          {"pareto", r.pareto}});
    }
    const nlohmann::ordered_json out{{"input", args.input},
                                     {"values", measured ? measured->elements : 0},
                                     {"bytes_in", measured ? measured->bytes_in : 0},
                                     {"codecs", codecs}};
    std::printf("%s\n", out.dump(2).c_str());
}

const CodecCatalogEntry& catalog_row(const std::string& name) {
    static const std::vector<CodecCatalogEntry> catalog = codec_catalog();
    const auto it = std::find_if(catalog.begin(), catalog.end(),
                                 [&](const CodecCatalogEntry& c) { return c.name == name; });
    if (it == catalog.end()) fail(ErrorKind::usage, "unknown codec '" + name + "'");
    return *it;
}

// A point's label: the setting of the codec's knob ("0.01" for a density, "8" for rangeq's
// bits), the series naming the key; for a codec without a knob, its keys ("to=bf16").
std::string point_label(const CodecSpec& spec, const CodecCatalogEntry& row) {
    if (!row.knob.key.empty()) {
        if (const auto value = spec.get(row.knob.key)) return std::string(*value);
    }
    const std::string text = spec.to_string();
    const auto colon = text.find(':');
    return colon == std::string::npos ? std::string() : text.substr(colon + 1);
}

void write_plot(const SweepArgs& args, const std::vector<Row>& rows) {
    std::vector<PlotSeries> series;
    std::vector<std::string> families;  // each series' payload, in order
    bool exact_left_out = false;
    for (const auto& r : rows) {
        if (!r.refused.empty()) continue;
        if (!(r.rel_l2() > 0)) {
            exact_left_out = true;
            continue;
        }
        const CodecCatalogEntry& row = catalog_row(r.spec.name);
        const std::string name = row.knob.key.empty()
                                     ? r.spec.name
                                     : r.spec.name + " (" + std::string(row.knob.key) + ")";
        auto it = std::find_if(series.begin(), series.end(),
                               [&](const PlotSeries& s) { return s.name == name; });
        if (it == series.end()) {
            // One family's codecs (one payload: topk, dgc and sidco) often lie on one another:
            // each takes the next dash and marker of its family.
            const int style = static_cast<int>(
                std::count(families.begin(), families.end(), std::string(row.payload)));
            families.emplace_back(row.payload);
            it = series.insert(series.end(), PlotSeries{name, {}, style});
        }
        it->points.push_back({r.bits(), r.rel_l2(), r.pareto, point_label(r.spec, row)});
    }
    const std::string name = args.input.substr(args.input.rfind('/') + 1);
    const PlotText text{"Rate and distortion: " + name, "bits per value (whole records)",
                        "relative L2 error",
                        exact_left_out ? "exact codecs (rel L2 = 0) not drawn" : ""};
    const std::string svg = render_svg(text, series);
    if (check_output_path(args.input, args.plot, args.force) == OutputMode::in_place) {
        FilePtr out = open_in_place(args.plot, "an SVG image");
        if (std::fwrite(svg.data(), 1, svg.size(), out.get()) != svg.size()) {
            fail(ErrorKind::io, args.plot + ": write failed: " + std::strerror(errno));
        }
        finish_in_place(out.get(), args.plot);
        return;
    }
    AtomicOutput out(args.plot, args.force);
    if (std::fwrite(svg.data(), 1, svg.size(), out.file()) != svg.size()) {
        fail(ErrorKind::io, args.plot + ": write failed: " + std::strerror(errno));
    }
    out.commit();
}

}  // namespace

int run_sweep(const SweepArgs& args) {
    if (args.json && args.csv) fail(ErrorKind::usage, "--json and --csv exclude each other");
    const Scope scope = parse_scope(args.scope);
    std::vector<Row> rows;
    for (auto& spec : parse_codec_list(args.codecs.empty() ? kDefaultCodecs : args.codecs))
        rows.push_back({spec});
    if (!args.plot.empty()) {
        const bool svg =
            args.plot.size() > 4 && args.plot.compare(args.plot.size() - 4, 4, ".svg") == 0;
        if (!svg)
            fail(ErrorKind::usage, "--plot " + args.plot + ": the plot is SVG; name it FILE.svg");
        check_output_path(args.input, args.plot, args.force);
    }
    const unsigned threads = resolve_threads(args.threads);
    Hid file = open_dump(args.input);
    const std::vector<DumpGroup> groups = float_groups(args.input, file.get(), args.select);
    if (groups.empty())
        fail(ErrorKind::bad_input,
             args.input + ": no float dataset" + (args.select.empty() ? "" : " matches --select"));
    for (const DumpGroup& g : groups) {
        // One step in memory at a time, so every codec sees the same bytes without re-reading.
        std::vector<std::vector<std::byte>> values;
        for (const UnitTensor& t : g.tensors)
            values.push_back(load_tensor(args.input, file.get(), t));
        const TensorLoader load = [&values](std::size_t i) { return values[i]; };
        // The codecs run side by side on the step; each row's sums are added in row order, so
        // the figures other than speed do not depend on the thread count.
        OrderedJobs jobs(threads);
        for (Row& row : rows) {
            if (!row.refused.empty()) continue;  // once refused, its figures would be partial
            auto measured = std::make_shared<UnitMeasure>();
            auto refused = std::make_shared<std::string>();
            jobs.add(
                0,
                [&row, &g, &load, scope, measured, refused](unsigned) {
                    // A codec that refuses a tensor (values its dtype or rules cannot take)
                    // is one cell of the table, not the end of the sweep; a failed read or
                    // write still is.
                    try {
                        *measured = measure_unit(row.spec, scope, g.tensors, load, EncodeOptions{});
                    } catch (const Error& e) {
                        if (e.kind() == ErrorKind::io)
                            fail(e.kind(), "codec " + row.spec.to_string() + ": " + e.what());
                        *refused = e.what();
                    }
                },
                [&row, scope, measured, refused] {
                    row.grouped = scope == Scope::group && has_group_scope(row.spec);
                    if (!refused->empty()) {
                        row.refused = *refused;
                        std::fprintf(stderr, "gradcodec: warning: codec %s refused: %s\n",
                                     row.spec.to_string().c_str(), printable(*refused).c_str());
                        return;
                    }
                    row.add(*measured);
                });
        }
        jobs.flush();
    }
    mark_pareto(rows);
    const bool all_refused =
        std::all_of(rows.begin(), rows.end(), [](const Row& r) { return !r.refused.empty(); });
    if (!args.plot.empty() && !all_refused) write_plot(args, rows);
    if (args.json) {
        print_json(args, rows);
    } else if (args.csv) {
        print_csv(rows);
    } else {
        print_table(rows);
    }
    // Every codec refused: nothing was measured, which a script must not take for success.
    return all_refused ? kExitBadInput : kExitOk;
}

}  // namespace gradcodec::cli
