#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "commands/commands.hpp"
#include "gradcodec/fit.hpp"
#include "gradcodec/gradcodec.hpp"
#include "gradcodec_hdf5/hdf5_dump.hpp"
#include "support/cli_support.hpp"
#include "support/exit_codes.hpp"
#include "support/ordered_jobs.hpp"

namespace gradcodec::cli {

using namespace gradcodec::hdf5;  // HDF5 dumps: gradcodec_hdf5_io (hdf5/)
namespace {

// What fitting holds at once per element: the values as f32, their magnitudes sorted through
// two radix buffers, and the sorted copy beside the selection's scratch. `gradcodec fit` on
// 3e8 elements peaks at 5.9 GB of RSS, 20 bytes each.
constexpr std::size_t kFitBytesPerElement = 20;

// walk_dump has refused shapes whose product wraps.
std::uint64_t element_count(const std::vector<std::uint64_t>& shape) {
    return std::accumulate(shape.begin(), shape.end(), std::uint64_t{1},
                           std::multiplies<std::uint64_t>());
}

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) out.push_back(item);
    return out;
}

std::vector<Distribution> parse_dists(const std::string& text) {
    std::vector<Distribution> out;
    for (const auto& name : split_list(text)) {
        const auto d = parse_distribution(name);
        if (!d)
            fail(ErrorKind::usage, "--dist '" + name + "': expected a list of exp, gpareto, gamma");
        out.push_back(*d);
    }
    if (out.empty()) fail(ErrorKind::usage, "--dist: expected a list of exp, gpareto, gamma");
    return out;
}

std::vector<double> parse_densities(const std::string& text) {
    std::vector<double> out;
    for (const auto& item : split_list(text)) {
        char* end = nullptr;
        const double d = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0' || !(d > 0 && d <= 1)) {
            fail(ErrorKind::usage,
                 "--density '" + item + "': expected densities in (0, 1], e.g. 0.01,0.001");
        }
        out.push_back(d);
    }
    if (out.empty()) fail(ErrorKind::usage, "--density: expected densities in (0, 1]");
    return out;
}

std::string format_params(const DistributionFit& fit) {
    std::string text;
    for (const auto& [name, value] : fit.params) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%s%s=%.4g", text.empty() ? "" : ",", name.c_str(),
                      value);
        text += buffer;
    }
    return text;
}

nlohmann::ordered_json number(double v) {
    return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json report_json(const std::string& name, const FitReport& report) {
    nlohmann::ordered_json fits = nlohmann::ordered_json::array();
    for (const auto& f : report.fits) {
        nlohmann::ordered_json params = nlohmann::ordered_json::object();
        for (const auto& [key, value] : f.params) params[key] = number(value);
        nlohmann::ordered_json thresholds = nlohmann::ordered_json::array();
        for (const auto& t : f.thresholds) {
            thresholds.push_back({{"density", t.density},
                                  {"threshold", number(t.threshold)},
                                  {"achieved", number(t.achieved)}});
        }
        fits.push_back({{"dist", std::string(distribution_name(f.dist))},
                        {"params", params},
                        {"ks", number(f.ks)},
                        {"thresholds", thresholds}});
    }
    nlohmann::ordered_json topk = nlohmann::ordered_json::array();
    for (const auto& t : report.topk)
        topk.push_back({{"density", t.density}, {"threshold", number(t.threshold)}});
    return {{"name", name}, {"elements", report.elements}, {"fits", fits}, {"topk", topk}};
}

void print_rows(const std::string& name, const FitReport& report) {
    for (const auto& f : report.fits) {
        for (std::size_t i = 0; i < f.thresholds.size(); ++i) {
            const auto& t = f.thresholds[i];
            std::printf("%-28s %10llu  %-7s  %-44s %7.4f  %8.4g  %11.5g  %9.5f  %11.5g\n",
                        printable(name).c_str(), static_cast<unsigned long long>(report.elements),
                        std::string(distribution_name(f.dist)).c_str(), format_params(f).c_str(),
                        f.ks, t.density, t.threshold, t.achieved, report.topk[i].threshold);
        }
    }
}

}  // namespace

int run_fit(const FitArgs& args) {
    const auto dists = parse_dists(args.dists);
    const auto densities = parse_densities(args.densities);
    Hid file = open_dump(args.input, false);
    nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
    if (!args.json) {
        std::printf("%-28s %10s  %-7s  %-44s %7s  %8s  %11s  %9s  %11s\n", "name", "elements",
                    "dist", "params", "ks", "density", "threshold", "achieved", "topk_thresh");
    }
    // Datasets are read here one at a time; the fits run on `threads` threads and print in order.
    OrderedJobs jobs(resolve_threads(args.threads));
    const ByteBudget budget(args.max_tensor_bytes);
    try {
        walk_dump(args.input, file.get(),
                  {[](const GroupRecord&) {},
                   [&](const DumpDataset& d) {
                       if (!is_float(d.dtype) || !selected(d.path, args.select)) return;
                       budget.check_working_memory(args.input + ": " + d.path, "fitting",
                                                   element_count(d.shape), kFitBytesPerElement);
                       struct FitJob {
                           std::vector<std::byte> bytes;
                           FitReport report;
                       };
                       auto job = std::make_shared<FitJob>(FitJob{d.read(args.input), {}});
                       const std::string name = display_name(d.path);
                       jobs.add(
                           job->bytes.size(),
                           [&, job, name, dtype = d.dtype](unsigned) {
                               const auto values = widen_to_float32(dtype, job->bytes);
                               job->bytes = {};
                               job->report = fit_tensor(values, dists, densities,
                                                        {0, args.input + ": " + name});
                           },
                           [&, job, name] {
                               if (args.json) {
                                   tensors.push_back(report_json(name, job->report));
                               } else {
                                   print_rows(name, job->report);
                               }
                           });
                   },
                   [](const LinkRecord&) {}},
                  DumpLimits{budget, args.allow_external});
    } catch (...) {
        jobs.flush();  // an earlier tensor's error comes first, as it would on one thread
        throw;
    }
    jobs.flush();
    // Names are bytes: invalid UTF-8 is shown as U+FFFD rather than aborting the dump.
    if (args.json) {
        std::printf("%s\n",
                    nlohmann::ordered_json{{"tensors", tensors}}
                        .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
                        .c_str());
    }
    finish_stdout();
    return kExitOk;
}

}  // namespace gradcodec::cli
