#pragma once
// One function per subcommand; main.cpp only declares options and calls these.
#include <cstdint>
#include <string>
#include <vector>

namespace gradcodec::cli {

// encode, sweep and simulate share one --scope default, so a setting measured by sweep is the
// setting encode writes. A tensor at a time, as the streaming encoder, the HDF5 filter and the
// DDP hook work, holds one tensor in memory; --scope group is the opt-in for a smaller error
// per byte at the cost of holding (and reading twice) a whole step.
inline constexpr const char* kDefaultScope = "tensor";

struct EncodeArgs {
    std::string input;
    std::string output;
    std::string codec = "lossless";
    std::vector<std::string> select;
    std::string raw;    // dtype of raw input, empty for HDF5
    std::string shape;  // with raw
    bool force = false;
    bool quiet = false;
    bool allow_nonfinite = false;
    bool allow_external = false;
    bool skip_unsupported = false;
    std::uint64_t max_tensor_bytes = 0;  // 0: the default (byte_budget.hpp)
    std::string device = "cpu";
    std::string scope = kDefaultScope;  // or "group": select across each HDF5 group's tensors
    std::string target;                 // KEY=VALUE: bits, rel_l2, abs, rel
    unsigned threads = 0;               // 0: every available core
};

struct DecodeArgs {
    std::string input;
    std::string output;
    bool raw = false;
    bool force = false;
    bool quiet = false;
    std::uint64_t max_elements = 0;  // 0: the default from this machine's memory
    std::uint64_t max_record_bytes = 0;
    std::uint64_t max_tensor_bytes = 0;  // 0: the default (byte_budget.hpp)
    std::uint64_t max_total_bytes = 0;
    std::string device = "cpu";
    unsigned threads = 0;  // 0: every available core
};

struct InspectArgs {
    std::string input;
    std::string against;
    bool json = false;
    bool allow_external = false;
    std::uint64_t max_elements = 0;
    std::uint64_t max_record_bytes = 0;
    unsigned threads = 0;  // 0: every available core
    std::uint64_t max_tensor_bytes = 0;
};

struct FitArgs {
    std::string input;
    std::vector<std::string> select;
    std::string dists = "exp,gpareto,gamma";
    std::string densities = "0.1,0.01,0.001";
    bool json = false;
    unsigned threads = 0;  // 0: every available core
    bool allow_external = false;
    std::uint64_t max_tensor_bytes = 0;
};

struct SweepArgs {
    std::string input;
    std::string codecs;  // SPEC;SPEC;... (empty: the default list)
    std::vector<std::string> select;
    std::string scope = kDefaultScope;
    bool json = false;
    bool csv = false;
    std::string plot;  // FILE.svg
    bool force = false;
    unsigned threads = 0;  // 0: every available core
};

struct SimulateArgs {
    std::string input;
    std::string codec;
    std::vector<std::string> select;
    std::string scope = kDefaultScope;
    std::string error_feedback = "on";
    double momentum = 0;
    bool json = false;
};

struct RepackArgs {
    std::string input;
    std::string output;
    std::string codec = "lossless";
    std::vector<std::string> select;
    std::uint64_t chunk = 0;  // most elements per chunk; main sets the documented default
    bool force = false;
    bool quiet = false;
    bool allow_nonfinite = false;
    unsigned threads = 0;  // 0: every available core
};

int run_encode(const EncodeArgs& args);
int run_repack(const RepackArgs& args);
int run_decode(const DecodeArgs& args);
int run_inspect(const InspectArgs& args);
int run_fit(const FitArgs& args);
int run_sweep(const SweepArgs& args);
int run_simulate(const SimulateArgs& args);

}  // namespace gradcodec::cli
