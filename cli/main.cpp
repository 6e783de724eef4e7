// gradcodec: declares the command line and calls the subcommands. No codec logic lives here.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "io/atomic_output.hpp"
#include "support/cli_support.hpp"
#include "support/device_choice.hpp"
#include "support/did_you_mean.hpp"
#include "support/exit_codes.hpp"
#ifdef GRADCODEC_HAVE_H5Z
#include "io/filtered_dataset.hpp"
#endif
#include "gradcodec/gradcodec.hpp"
#include "io/signal_cleanup.hpp"

using namespace gradcodec;
using namespace gradcodec::cli;

namespace {

std::string version_text() {
    std::string text = std::string("gradcodec ") + library_version() + "\nformat " +
                       format_version_string() + "\nfft backends:";
    for (const auto& b : fft_backends()) text += " " + b;
    return text;
}

// Every codec's line, its defaults and its --target knob, from the registry.
std::string codec_list() {
    std::string text = "Codecs (--codec NAME[:key=value,...]; a bare NAME takes the defaults):\n";
    for (const CodecCatalogEntry& c : codec_catalog()) {
        text += "  " + std::string(c.name) + ": " + std::string(c.summary) + "\n";
        std::string notes;
        if (!c.defaults.empty()) notes += "defaults " + std::string(c.defaults);
        const bool rate = c.knob.kind == KnobKind::density || c.knob.kind == KnobKind::ladder;
        if (rate || c.knob.pointwise) {
            notes += std::string(notes.empty() ? "" : "; ") + "--target " +
                     (rate ? "" : "abs= or rel= ") + "sets " + std::string(c.knob.key) +
                     (rate && c.knob.pointwise ? " (abs= and rel= too)" : "");
        }
        if (!notes.empty()) text += "      " + notes + "\n";
    }
    return text;
}

// The codecs whose row says `fits`, "a, b and c".
template <class Fits>
std::string codec_names(Fits fits) {
    std::vector<std::string> names;
    for (const CodecCatalogEntry& c : codec_catalog())
        if (fits(c)) names.emplace_back(c.name);
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i)
        text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    return text;
}

std::string scope_help() {
    return "tensor: each tensor on its own, one in memory at a time (the streaming encoder, the "
           "HDF5 filter and the DDP hook work so); group: " +
           codec_names([](const CodecCatalogEntry& c) {
               return has_group_scope(parse_codec_spec(c.name));
           }) +
           " choose across each HDF5 group's selected tensors (a step), a smaller error per byte "
           "for holding the step. encode, sweep and simulate share the default";
}

std::string target_help() {
    return "Choose the codec's knob by search: bits=B (at most B bits/value) or rel_l2=E "
           "(smallest with rel L2 <= E, checked by decoding) for " +
           codec_names([](const CodecCatalogEntry& c) {
               return c.knob.kind == KnobKind::density || c.knob.kind == KnobKind::ladder;
           }) +
           "; abs=A or rel=R (every value within A or R*|x|; a tensor no setting holds is "
           "written lossless) for " +
           codec_names([](const CodecCatalogEntry& c) { return c.knob.pointwise; });
}

// Limit errors come from the library; the CLI knows which flag raises the cap.
// The library's messages name its options; the user knows them as flags.
std::string with_flag_hint(const Error& e) {
    std::string message = e.what();
    const std::string option = "(allow_nonfinite carries";
    if (const auto at = message.find(option); at != std::string::npos) {
        message.replace(at, option.size(), "(--allow-nonfinite carries");
    }
    if (e.kind() != ErrorKind::limit || message.find("--max-") != std::string::npos) return message;
    const bool record = message.find("max_record_bytes") != std::string::npos;
    return message + (record ? " (raise the cap with --max-record-bytes N)"
                             : " (raise the cap with --max-elements N)");
}

// Zero and negative caps are refused rather than read as "no cap" (-1 would wrap to 2^64-1).
const CLI::Validator kPositiveCap(
    [](std::string& value) -> std::string {
        const bool positive = !value.empty() &&
                              value.find_first_not_of("0123456789") == std::string::npos &&
                              value.find_first_not_of('0') != std::string::npos;
        return positive ? std::string() : "expected a positive whole number, not '" + value + "'";
    },
    "N>0");

// Byte counts take K, M, G, T suffixes (powers of 1024).
void add_tensor_cap(CLI::App* cmd, std::uint64_t& value, const std::string& more = {}) {
    cmd->add_option("--max-tensor-bytes", value,
                    "Refuse a tensor of more bytes, or fit's working memory for one of more "
                    "(default: a quarter of the memory this process may use, under ulimit -v or "
                    "the machine's, at most 4 GiB); suffixes K, M, G, T" +
                        more)
        ->transform(CLI::AsSizeValue(false))
        ->check(kPositiveCap);
}

void add_stream_caps(CLI::App* cmd, std::uint64_t& max_elements, std::uint64_t& max_record_bytes) {
    cmd->add_option(
           "--max-elements", max_elements,
           "Refuse tensors declaring more elements (default: half this machine's memory in f32)")
        ->check(kPositiveCap);
    cmd->add_option("--max-record-bytes", max_record_bytes,
                    "Refuse records declaring more bytes (default: half this machine's memory)")
        ->transform(CLI::AsSizeValue(false))
        ->check(kPositiveCap);
}

void add_allow_external(CLI::App* cmd, bool& value) {
    cmd->add_flag(
        "--allow-external", value,
        "Read datasets stored in external files or mapped from other datasets (virtual), when "
        "their files lie below INPUT's folder; refused otherwise");
}

void add_encode(CLI::App& app, EncodeArgs& a) {
    auto* cmd = app.add_subcommand(
        "encode", "Encode an HDF5 gradient dump (or raw values) into a gradcodec stream");
    cmd->add_option("INPUT", a.input,
                    "HDF5 dump, or raw little-endian values with --raw; - is stdin")
        ->required();
    cmd->add_option("-o,--output", a.output, "Output stream; - is stdout")->required();
    cmd->add_option("--codec", a.codec,
                    "Codec spec for the selected float datasets (the codecs and their defaults "
                    "are listed below)")
        ->capture_default_str();
    cmd->add_option("--select", a.select,
                    "Glob over dataset paths (e.g. 'step_00010/*'); repeatable. Unselected "
                    "datasets travel lossless");
    cmd->add_option("--raw", a.raw,
                    "INPUT holds raw little-endian values of this type: f32, f16, bf16, f64");
    cmd->add_option("--shape", a.shape,
                    "Shape of the raw tensor, e.g. 1024x1024 (default for a regular file: its "
                    "values in one dimension; standard input needs it)");
    cmd->add_option("--device", a.device, kDeviceHelp)->capture_default_str();
    cmd->add_flag("--allow-nonfinite", a.allow_nonfinite,
                  "Carry NaN and inf exactly where a lossy codec would refuse");
    cmd->add_option("--scope", a.scope, scope_help())->capture_default_str();
    cmd->add_option("--target", a.target, target_help());
    add_allow_external(cmd, a.allow_external);
    cmd->add_flag(
        "--skip-unsupported", a.skip_unsupported,
        "Leave out, with a warning, objects gradcodec cannot carry (object and region reference "
        "datasets, named datatypes, user-defined links) instead of stopping");
    add_tensor_cap(cmd, a.max_tensor_bytes);
    cmd->add_flag("-f,--force", a.force, "Replace an existing OUTPUT");
    cmd->add_flag("-q,--quiet", a.quiet, "No notices or progress on stderr");
    cmd->footer(
        codec_list() +
        "\nExamples:\n  gradcodec encode dump.h5 -o dump.gcs --codec topk:density=0.01\n"
        "  gradcodec encode dump.h5 -o - --codec rangeq:bits=8 --select 'step_00010/*' | "
        "ssh host gradcodec decode - -o dump.h5\n"
        "  gradcodec encode grad.f32 --raw f32 --shape 1024x1024 -o grad.gcs --codec "
        "cast:to=bf16\n"
        "  gradcodec encode dump.h5 -o dump.gcs --codec topk --scope group --target bits=0.5\n"
        "  gradcodec encode dump.h5 -o dump.gcs --codec rangeq --target abs=1e-6\n\n" +
        std::string(kExitCodeHelp));
    add_threads_option(*cmd, a.threads);
    cmd->callback([&a] { std::exit(run_encode(a)); });
}

void add_decode(CLI::App& app, DecodeArgs& a) {
    auto* cmd = app.add_subcommand(
        "decode", "Decode a gradcodec stream back into an HDF5 file (or raw values)");
    cmd->add_option("INPUT", a.input, "Stream to decode; - is stdin")->required();
    cmd->add_option("-o,--output", a.output,
                    "Output HDF5 file (or raw values with --raw); - is stdout")
        ->required();
    cmd->add_flag("--raw", a.raw,
                  "Write the values of a single-tensor stream, little-endian in their dtype");
    cmd->add_option("--device", a.device, kDeviceHelp)->capture_default_str();
    add_stream_caps(cmd, a.max_elements, a.max_record_bytes);
    add_tensor_cap(cmd, a.max_tensor_bytes,
                   ". Sparse tensors (topk, threshold, dgc, sidco) over it or over 64 MiB decode "
                   "in slabs of 4 MiB, written as they decode: for them it caps only the kept "
                   "values held (about 12 bytes each) and --max-total-bytes their size. Other "
                   "codecs (cast, rangeq, fft, dct, lowrank, randomk, ...) decode whole tensors "
                   "and are refused over it");
    cmd->add_option(
           "--max-total-bytes", a.max_total_bytes,
           "Refuse a stream decoding to more bytes in all (default: 16 GiB); suffixes K, M, G, T")
        ->transform(CLI::AsSizeValue(false))
        ->check(kPositiveCap);
    cmd->add_flag("-f,--force", a.force, "Replace an existing OUTPUT");
    cmd->add_flag("-q,--quiet", a.quiet, "No progress on stderr");
    cmd->footer(
        "Examples:\n  gradcodec decode dump.gcs -o dump.h5\n  gradcodec decode - --raw -o - < "
        "grad.gcs > grad.f32\n\n" +
        std::string(kExitCodeHelp));
    add_threads_option(*cmd, a.threads);
    cmd->callback([&a] { std::exit(run_decode(a)); });
}

void add_inspect(CLI::App& app, InspectArgs& a) {
    auto* cmd = app.add_subcommand(
        "inspect", "Show what each tensor of a stream costs, and with --against what it loses");
    cmd->add_option("INPUT", a.input,
                    "Stream to inspect (- is stdin), or an HDF5 file written by repack")
        ->required();
    cmd->add_option("--against", a.against,
                    "Original HDF5 dump (or raw file of a single-tensor stream) for error metrics");
    cmd->add_flag("--json", a.json, "Print one JSON object instead of the table");
    add_stream_caps(cmd, a.max_elements, a.max_record_bytes);
    add_tensor_cap(cmd, a.max_tensor_bytes);
    add_allow_external(cmd, a.allow_external);
    cmd->footer(
        "Columns: kept = scalars the codec carries (top-k values, kept spectrum scalars), for "
        "dense codecs\n"
        "the non-zero decoded values; density = kept/elements; target = the codec's target "
        "density;\n"
        "bytes_in = raw size; bytes_out = record size on the wire; ratio = bytes_in/bytes_out;\n"
        "bits/value = 8*bytes_out/elements; pos_bits, val_bits = bits per element spent on "
        "positions and values.\n"
        "The total row's bytes_out is the whole stream: header, every record and the end marker.\n"
        "Rows GROUP/* sum the records of each HDF5 group (a step); metrics over all its tensors.\n"
        "Metrics (--against), in double precision over x = original, y = decoded:\n"
        "  rel_l2 = ||x-y||/||x||, cosine = <x,y>/(||x|| ||y||), max_abs = max|x-y|,\n"
        "  psnr_db = 20*log10(max(x)-min(x)) - 10*log10(mse), energy_kept = ||y||^2/||x||^2.\n"
        "In JSON, values that are infinite (psnr_db of an exact tensor) are null.\n\n" +
        std::string(kExitCodeHelp));
    add_threads_option(*cmd, a.threads);
    cmd->callback([&a] { std::exit(run_inspect(a)); });
}

#ifdef GRADCODEC_HAVE_H5Z
void add_repack(CLI::App& app, RepackArgs& a) {
    auto* cmd = app.add_subcommand(
        "repack",
        "Rewrite an HDF5 dump with its float datasets filtered by gradcodec (stays HDF5)");
    cmd->add_option("INPUT", a.input, "HDF5 dump")->required();
    cmd->add_option("-o,--output", a.output, "Output HDF5 file")->required();
    cmd->add_option("--codec", a.codec,
                    "Codec spec for each chunk: " +
                        codec_names([](const CodecCatalogEntry& c) { return c.filter_ok; }))
        ->capture_default_str();
    cmd->add_option(
        "--select", a.select,
        "Glob over dataset paths; repeatable. Unselected datasets are copied as they are");
    a.chunk = kDefaultChunkElements;
    cmd->add_option(
           "--chunk", a.chunk,
           "Most elements per chunk; larger tensors are cut along their leading dimensions")
        ->capture_default_str();
    cmd->add_flag("--allow-nonfinite", a.allow_nonfinite,
                  "Carry NaN and inf exactly where a lossy codec would refuse");
    cmd->add_flag("-f,--force", a.force, "Replace an existing OUTPUT");
    cmd->add_flag("-q,--quiet", a.quiet, "No notices or progress on stderr");
    cmd->footer(
        "Each chunk is one gradcodec frame. Read the output with HDF5_PLUGIN_PATH naming the "
        "directory of\n"
        "libH5Zgradcodec.so (h5py, h5dump, h5ls -v, any HDF5 program). Sparse codecs select per "
        "chunk.\n\n"
        "Example:\n  gradcodec repack dump.h5 -o dump.rq8.h5 --codec rangeq:bits=8 --select "
        "'step_*/*'\n\n" +
        std::string(kExitCodeHelp));
    add_threads_option(*cmd, a.threads);
    cmd->callback([&a] { std::exit(run_repack(a)); });
}
#endif

void add_fit(CLI::App& app, FitArgs& a) {
    auto* cmd =
        app.add_subcommand("fit", "Fit SIDCo's distributions to each float tensor's magnitudes");
    cmd->add_option("INPUT", a.input, "HDF5 dump; - is stdin")->required();
    cmd->add_option("--select", a.select,
                    "Glob over dataset paths; repeatable (default: every float dataset)");
    cmd->add_option("--dist", a.dists, "Distributions to fit: exp, gpareto, gamma")
        ->capture_default_str();
    cmd->add_option("--density", a.densities, "Target densities for the thresholds")
        ->capture_default_str();
    cmd->add_flag("--json", a.json, "Print one JSON object instead of the table");
    add_tensor_cap(cmd, a.max_tensor_bytes);
    add_allow_external(cmd, a.allow_external);
    cmd->footer(
        "Per tensor and distribution: the fitted parameters of |x| (exp: scale; gpareto: shape, "
        "scale;\n"
        "gamma: shape, scale, zero_fraction), the Kolmogorov-Smirnov distance of the fit on |x|, "
        "and per\n"
        "density SIDCo's threshold (stages=auto), the density it achieves, and the exact top-k "
        "threshold.\n\n"
        "Example:\n  gradcodec fit dump.h5 --select 'step_00010/*' --dist exp,gamma --density "
        "0.01,0.001 --json\n\n" +
        std::string(kExitCodeHelp));
    add_threads_option(*cmd, a.threads);
    cmd->callback([&a] { std::exit(run_fit(a)); });
}

void add_sweep(CLI::App& app, SweepArgs& a) {
    auto* cmd = app.add_subcommand(
        "sweep", "Compare codecs on a dump: rate, error and speed of each, with the Pareto front");
    cmd->add_option("INPUT", a.input, "HDF5 dump; - is stdin")->required();
    cmd->add_option("--codecs", a.codecs,
                    "Codec specs separated by ';' (default: every family at several rates; the "
                    "codecs are listed below)");
    cmd->add_option("--select", a.select,
                    "Glob over dataset paths; repeatable (default: every float dataset)");
    cmd->add_option("--scope", a.scope, scope_help())->capture_default_str();
    cmd->add_flag("--json", a.json, "Print one JSON object instead of the table");
    cmd->add_flag("--csv", a.csv, "Print CSV instead of the table");
    cmd->add_option("--plot", a.plot, "Write rate against distortion as an SVG image (FILE.svg)");
    cmd->add_flag("-f,--force", a.force, "Replace an existing plot file");
    cmd->footer(
        "Each codec encodes and decodes every selected float tensor in memory, one step at a "
        "time.\n"
        "bits/value counts whole records (framing and checksums included) over the selected "
        "values;\n"
        "rel_l2 and cosine are over all of them; MB/s are input megabytes per second of encode "
        "(group\n"
        "planning included) and decode, each codec on one thread; with -T above 1 the codecs "
        "run side by\n"
        "side and share the memory bandwidth (use -T 1 to compare speeds). pareto: no other "
        "codec is both\n"
        "smaller and closer.\n\n"
        "Example:\n  gradcodec sweep dump.h5 --plot rd.svg\n  gradcodec sweep dump.h5 --codecs "
        "'topk:density=0.01;rangeq:bits=4' --json\n\n" +
        codec_list() + "\n" + std::string(kExitCodeHelp));
    add_threads_option(*cmd, a.threads);
    cmd->callback([&a] { std::exit(run_sweep(a)); });
}

void add_simulate(CLI::App& app, SimulateArgs& a) {
    auto* cmd = app.add_subcommand(
        "simulate",
        "Run a codec over a dump's steps in order, as a trainer would, with error feedback");
    cmd->add_option("INPUT", a.input, "HDF5 dump, one group per step; - is stdin")->required();
    cmd->add_option("--codec", a.codec,
                    "Codec spec (the codecs and their defaults are listed below)")
        ->required();
    cmd->add_option("--select", a.select,
                    "Glob over dataset paths; repeatable (default: every float dataset)");
    cmd->add_option("--scope", a.scope, scope_help())->capture_default_str();
    cmd->add_option("--error-feedback", a.error_feedback,
                    "on: carry g + r - sent into the next step; off: drop it")
        ->capture_default_str();
    cmd->add_option("--momentum", a.momentum,
                    "DGC momentum correction and masking with this momentum (0: none)")
        ->capture_default_str();
    cmd->add_flag("--json", a.json, "Print one JSON object instead of the table");
    cmd->footer(
        "Per step: rel_l2 = ||sent - u|| / ||u|| of the step, where u is the update a dense "
        "trainer applies\n"
        "(the gradient g; with --momentum M, the momentum update m = M*m + g); drift = ||sum(sent "
        "- u)|| /\n"
        "||sum u|| over the steps so far; bytes = the step's records on the wire.\n"
        "A stochastic codec's seed=S seeds the first step, S+t step t (random-k then draws new "
        "positions\nevery step, as error feedback needs); without seed= every record draws a fresh "
        "seed.\n\n"
        "Example:\n  gradcodec simulate dump.h5 --codec topk:density=0.01 --error-feedback "
        "off\n\n" +
        codec_list() + "\n" + std::string(kExitCodeHelp));
    cmd->callback([&a] { std::exit(run_simulate(a)); });
}

// An unknown first word: one line naming it and the closest subcommand, if one is close (true);
// false when the first word is a known command or a flag.
bool report_unknown_command(const CLI::App& app, int argc, char** argv) {
    if (argc < 2) return false;
    const std::string first = argv[1];
    if (first.empty() || first[0] == '-') return false;
    std::vector<std::string> commands;
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        commands.push_back(sub->get_name());
    if (std::find(commands.begin(), commands.end(), first) != commands.end()) return false;
    if (const auto word = closest_word(first, commands)) {
        std::fprintf(stderr, "gradcodec: unknown command '%s'; did you mean '%s'?\n",
                     printable(first).c_str(), word->c_str());
    } else {
        std::fprintf(stderr,
                     "gradcodec: unknown command '%s' (gradcodec --help lists the commands)\n",
                     printable(first).c_str());
    }
    return true;
}

// After a parse error in a known subcommand: the closest flag to each unknown one.
void suggest_flags(const CLI::App& app, int argc, char** argv) {
    if (argc < 2) return;
    const std::string first = argv[1];
    if (app.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == first; }).empty())
        return;
    const CLI::App* sub = app.get_subcommand(first);
    std::vector<std::string> flags;
    for (const auto* option : sub->get_options()) {
        for (const auto& name : option->get_lnames()) flags.push_back("--" + name);
    }
    for (int i = 2; i < argc; ++i) {
        std::string word = argv[i];
        if (word.rfind("--", 0) != 0) continue;
        word = word.substr(0, word.find('='));
        if (std::find(flags.begin(), flags.end(), word) != flags.end()) continue;
        if (const auto flag = closest_word(word, flags)) {
            std::fprintf(stderr, "gradcodec: unknown option '%s'; did you mean '%s'?\n",
                         printable(word).c_str(), flag->c_str());
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    install_signal_cleanup();
    CLI::App app{"gradcodec: lossy and lossless codecs for deep-learning gradients"};
    app.set_version_flag("--version", version_text());
    app.require_subcommand(1);
    app.footer(kExitCodeHelp);
    EncodeArgs encode;
    DecodeArgs decode;
    InspectArgs inspect;
    FitArgs fit;
    SweepArgs sweep;
    SimulateArgs simulate;
    add_encode(app, encode);
    add_decode(app, decode);
    add_inspect(app, inspect);
    add_fit(app, fit);
    add_sweep(app, sweep);
    add_simulate(app, simulate);
#ifdef GRADCODEC_HAVE_H5Z
    RepackArgs repack;
    add_repack(app, repack);
#endif
    if (argc == 1) {  // no command at all: what the commands are, as --help shows them
        app.name(argv[0]);
        std::fputs(app.help().c_str(), stderr);
        return kExitUsage;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // A mistyped command gets one line, its suggestion, instead of CLI11's message too.
        if (report_unknown_command(app, argc, argv)) return kExitUsage;
        app.exit(e);
        suggest_flags(app, argc, argv);
        return kExitUsage;
    } catch (const Error& e) {
        std::fprintf(stderr, "gradcodec: %s\n", printable(with_flag_hint(e)).c_str());
        return exit_code_for(e.kind());
    } catch (const std::bad_alloc&) {
        // Every large allocation is sized by what INPUT declares: a refused input, not an I/O
        // failure.
        std::fprintf(
            stderr,
            "gradcodec: out of memory for what INPUT declares (--max-tensor-bytes caps what is "
            "accepted)\n");
        return kExitBadInput;
    }
    return kExitOk;
}
