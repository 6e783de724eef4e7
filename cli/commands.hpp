#pragma once
// One function per subcommand; main.cpp only declares options and calls these.
#include <cstdint>
#include <string>
#include <vector>

namespace gradcodec::cli {

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
    std::string device = "cpu";
};

struct DecodeArgs {
    std::string input;
    std::string output;
    bool raw = false;
    bool force = false;
    bool quiet = false;
    std::uint64_t max_elements = 0;  // 0: the default from this machine's memory
    std::uint64_t max_record_bytes = 0;
    std::string device = "cpu";
};

struct InspectArgs {
    std::string input;
    std::string against;
    bool json = false;
    std::uint64_t max_elements = 0;
    std::uint64_t max_record_bytes = 0;
};

struct FitArgs {
    std::string input;
    std::vector<std::string> select;
    std::string dists = "exp,gpareto,gamma";
    std::string densities = "0.1,0.01,0.001";
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
};

int run_encode(const EncodeArgs& args);
int run_repack(const RepackArgs& args);
int run_decode(const DecodeArgs& args);
int run_inspect(const InspectArgs& args);
int run_fit(const FitArgs& args);

}  // namespace gradcodec::cli
