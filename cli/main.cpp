// gradcodec: declares the command line and calls the subcommands. No codec logic lives here.
#include <hdf5.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "atomic_output.hpp"
#include "commands.hpp"
#include "device_choice.hpp"
#include "exit_codes.hpp"
#ifdef GRADCODEC_HAVE_H5Z
#include "filtered_dataset.hpp"
#endif
#include "gradcodec/gradcodec.hpp"

using namespace gradcodec;
using namespace gradcodec::cli;

namespace {

std::string version_text() {
    std::string text = std::string("gradcodec ") + library_version() + "\nformat " + format_version_string() +
                       "\nfft backends:";
    for (const auto& b : fft_backends()) text += " " + b;
    return text;
}

std::string codec_list() {
    std::string text = "Codecs (--codec NAME[:key=value,...]):\n";
    for (const auto& c : list_codecs()) text += "  " + std::string(c.name) + ": " + std::string(c.summary) + "\n";
    return text;
}

// Limit errors come from the library; the CLI knows which flag raises the cap.
std::string with_flag_hint(const Error& e) {
    const std::string message = e.what();
    if (e.kind() != ErrorKind::limit) return message;
    const bool record = message.find("max_record_bytes") != std::string::npos;
    return message + (record ? " (raise the cap with --max-record-bytes N)" : " (raise the cap with --max-elements N)");
}

void add_encode(CLI::App& app, EncodeArgs& a) {
    auto* cmd = app.add_subcommand("encode", "Encode an HDF5 gradient dump (or raw values) into a gradcodec stream");
    cmd->add_option("INPUT", a.input, "HDF5 dump, or raw little-endian values with --raw; - is stdin")->required();
    cmd->add_option("-o,--output", a.output, "Output stream; - is stdout")->required();
    cmd->add_option("--codec", a.codec, "Codec spec for the selected float datasets")->capture_default_str();
    cmd->add_option("--select", a.select,
                    "Glob over dataset paths (e.g. 'step_00010/*'); repeatable. Unselected datasets travel lossless");
    cmd->add_option("--raw", a.raw, "INPUT holds raw little-endian values of this type: f32, f16, bf16, f64");
    cmd->add_option("--shape", a.shape, "Shape of the raw tensor, e.g. 1024x1024");
    cmd->add_option("--device", a.device, kDeviceHelp)->capture_default_str();
    cmd->add_flag("--allow-nonfinite", a.allow_nonfinite, "Carry NaN and inf exactly where a lossy codec would refuse");
    cmd->add_flag("-f,--force", a.force, "Replace an existing OUTPUT");
    cmd->add_flag("-q,--quiet", a.quiet, "No notices or progress on stderr");
    cmd->footer(codec_list() + "\nExamples:\n  gradcodec encode dump.h5 -o dump.gcs --codec topk:density=0.01\n"
                "  gradcodec encode dump.h5 -o - --codec rangeq:bits=8 --select 'step_00010/*' | ssh host gradcodec decode - -o dump.h5\n"
                "  gradcodec encode grad.f32 --raw f32 --shape 1024x1024 -o grad.gcs --codec cast:to=bf16\n\n" +
                std::string(kExitCodeHelp));
    cmd->callback([&a] { std::exit(run_encode(a)); });
}

void add_decode(CLI::App& app, DecodeArgs& a) {
    auto* cmd = app.add_subcommand("decode", "Decode a gradcodec stream back into an HDF5 file (or raw values)");
    cmd->add_option("INPUT", a.input, "Stream to decode; - is stdin")->required();
    cmd->add_option("-o,--output", a.output, "Output HDF5 file (or raw values with --raw); - is stdout")->required();
    cmd->add_flag("--raw", a.raw, "Write the values of a single-tensor stream, little-endian in their dtype");
    cmd->add_option("--device", a.device, kDeviceHelp)->capture_default_str();
    cmd->add_option("--max-elements", a.max_elements,
                    "Refuse tensors declaring more elements (default: half this machine's memory in f32)");
    cmd->add_option("--max-record-bytes", a.max_record_bytes,
                    "Refuse records declaring more bytes (default: half this machine's memory)");
    cmd->add_flag("-f,--force", a.force, "Replace an existing OUTPUT");
    cmd->add_flag("-q,--quiet", a.quiet, "No progress on stderr");
    cmd->footer("Examples:\n  gradcodec decode dump.gcs -o dump.h5\n  gradcodec decode - --raw -o - < grad.gcs > grad.f32\n\n" +
                std::string(kExitCodeHelp));
    cmd->callback([&a] { std::exit(run_decode(a)); });
}

void add_inspect(CLI::App& app, InspectArgs& a) {
    auto* cmd = app.add_subcommand("inspect", "Show what each tensor of a stream costs, and with --against what it loses");
    cmd->add_option("INPUT", a.input, "Stream to inspect (- is stdin), or an HDF5 file written by repack")->required();
    cmd->add_option("--against", a.against, "Original HDF5 dump (or raw file of a single-tensor stream) for error metrics");
    cmd->add_flag("--json", a.json, "Print one JSON object instead of the table");
    cmd->add_option("--max-elements", a.max_elements, "Refuse tensors declaring more elements");
    cmd->add_option("--max-record-bytes", a.max_record_bytes, "Refuse records declaring more bytes");
    cmd->footer(
        "Columns: kept = scalars the codec carries (top-k values, kept spectrum scalars), for dense codecs\n"
        "the non-zero decoded values; density = kept/elements; target = the codec's target density;\n"
        "bytes_in = raw size; bytes_out = record size on the wire; ratio = bytes_in/bytes_out;\n"
        "bits/value = 8*bytes_out/elements; pos_bits, val_bits = bits per element spent on positions and values.\n"
        "The total row's bytes_out is the whole stream: header, every record and the end marker.\n"
        "Metrics (--against), in double precision over x = original, y = decoded:\n"
        "  rel_l2 = ||x-y||/||x||, cosine = <x,y>/(||x|| ||y||), max_abs = max|x-y|,\n"
        "  psnr_db = 20*log10(max(x)-min(x)) - 10*log10(mse), energy_kept = ||y||^2/||x||^2.\n"
        "In JSON, values that are infinite (psnr_db of an exact tensor) are null.\n\n" +
        std::string(kExitCodeHelp));
    cmd->callback([&a] { std::exit(run_inspect(a)); });
}

#ifdef GRADCODEC_HAVE_H5Z
void add_repack(CLI::App& app, RepackArgs& a) {
    auto* cmd = app.add_subcommand("repack", "Rewrite an HDF5 dump with its float datasets filtered by gradcodec (stays HDF5)");
    cmd->add_option("INPUT", a.input, "HDF5 dump")->required();
    cmd->add_option("-o,--output", a.output, "Output HDF5 file")->required();
    cmd->add_option("--codec", a.codec, "Codec spec for each chunk: lossless, cast, rangeq, topk, threshold, dgc, sidco")
        ->capture_default_str();
    cmd->add_option("--select", a.select, "Glob over dataset paths; repeatable. Unselected datasets are copied as they are");
    a.chunk = kDefaultChunkElements;
    cmd->add_option("--chunk", a.chunk, "Most elements per chunk; larger tensors are cut along their leading dimensions")
        ->capture_default_str();
    cmd->add_flag("--allow-nonfinite", a.allow_nonfinite, "Carry NaN and inf exactly where a lossy codec would refuse");
    cmd->add_flag("-f,--force", a.force, "Replace an existing OUTPUT");
    cmd->add_flag("-q,--quiet", a.quiet, "No notices or progress on stderr");
    cmd->footer("Each chunk is one gradcodec frame. Read the output with HDF5_PLUGIN_PATH naming the directory of\n"
                "libH5Zgradcodec.so (h5py, h5dump, h5ls -v, any HDF5 program). Sparse codecs select per chunk.\n\n"
                "Example:\n  gradcodec repack dump.h5 -o dump.rq8.h5 --codec rangeq:bits=8 --select 'step_*/*'\n\n" +
                std::string(kExitCodeHelp));
    cmd->callback([&a] { std::exit(run_repack(a)); });
}
#endif

void add_fit(CLI::App& app, FitArgs& a) {
    auto* cmd = app.add_subcommand("fit", "Fit SIDCo's distributions to each float tensor's magnitudes");
    cmd->add_option("INPUT", a.input, "HDF5 dump; - is stdin")->required();
    cmd->add_option("--select", a.select, "Glob over dataset paths; repeatable (default: every float dataset)");
    cmd->add_option("--dist", a.dists, "Distributions to fit: exp, gpareto, gamma")->capture_default_str();
    cmd->add_option("--density", a.densities, "Target densities for the thresholds")->capture_default_str();
    cmd->add_flag("--json", a.json, "Print one JSON object instead of the table");
    cmd->footer(
        "Per tensor and distribution: the fitted parameters of |x| (exp: scale; gpareto: shape, scale;\n"
        "gamma: shape, scale, zero_fraction), the Kolmogorov-Smirnov distance of the fit on |x|, and per\n"
        "density SIDCo's threshold (stages=auto), the density it achieves, and the exact top-k threshold.\n\n"
        "Example:\n  gradcodec fit dump.h5 --select 'step_00010/*' --dist exp,gamma --density 0.01,0.001 --json\n\n" +
        std::string(kExitCodeHelp));
    cmd->callback([&a] { std::exit(run_fit(a)); });
}

}  // namespace

int main(int argc, char** argv) {
    install_signal_cleanup();
    // No HDF5 clean-up at exit: after a failed write (a full disk) HDF5 1.10 keeps a half-closed
    // file whose close callback crashes in H5_term_library. Every file that matters is closed
    // explicitly before success is reported, so nothing is lost by skipping it.
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // our messages replace HDF5's error stack
    CLI::App app{"gradcodec: lossy and lossless codecs for deep-learning gradients"};
    app.set_version_flag("--version", version_text());
    app.require_subcommand(1);
    app.footer(kExitCodeHelp);
    EncodeArgs encode;
    DecodeArgs decode;
    InspectArgs inspect;
    FitArgs fit;
    add_encode(app, encode);
    add_decode(app, decode);
    add_inspect(app, inspect);
    add_fit(app, fit);
#ifdef GRADCODEC_HAVE_H5Z
    RepackArgs repack;
    add_repack(app, repack);
#endif
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return kExitUsage;
    } catch (const Error& e) {
        std::fprintf(stderr, "gradcodec: %s\n", with_flag_hint(e).c_str());
        return exit_code_for(e.kind());
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "gradcodec: out of memory\n");
        return kExitIo;
    }
    return kExitOk;
}
