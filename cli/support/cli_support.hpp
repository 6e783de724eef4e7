#pragma once
// Small pieces every subcommand shares: opening inputs, shapes, globs, progress.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gradcodec/dtype.hpp"
#include "gradcodec_hdf5/printable.hpp"

namespace CLI {
class App;
}

namespace gradcodec::cli {

// Control characters (escape sequences included) as \xNN, so a hostile name cannot drive
// the terminal it is printed on (gradcodec_hdf5/printable.hpp).
using hdf5::printable;

// `--threads N` (`-T N`), the same on every subcommand. 0, the default, means every core this
// process may run on; 1 runs everything on the calling thread.
void add_threads_option(CLI::App& command, unsigned& threads);
unsigned resolve_threads(unsigned requested);

struct FileCloser {
    void operator()(std::FILE* f) const {
        if (f && f != stdin && f != stdout) std::fclose(f);
    }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// Opens INPUT for binary reading; "-" is standard input. Errors are io errors naming it.
FilePtr open_input(const std::string& path);

// "1024x1024" -> {1024, 1024}; Error(usage) on anything else.
std::vector<std::uint64_t> parse_shape(const std::string& text);

// --raw TYPE for encode: f32, f16, f64 (and bf16).
DType parse_raw_dtype(const std::string& text);

// True when `path` ("/step_00010/fc.weight") matches any glob ("step_00010/*"); an empty list
// selects everything. Globs match the path without its leading '/', or with it when they start with
// '/'.
bool selected(const std::string& path, const std::vector<std::string>& globs);

// Flushes standard output; Error(io) when writing it failed (a full disk, /dev/full).
void finish_stdout();

// Paths are shown without the leading '/', as users write them in --select.
std::string display_name(const std::string& path);

// A one-line progress indicator on stderr, only when stderr is a terminal.
class Progress {
  public:
    Progress(std::string verb, bool quiet);
    // Lines read "encode 3/480: name" once the total is known, "encode 3: name" before.
    void set_total(std::size_t total) { total_ = total; }
    // Whether lines are shown (stderr is a terminal and not --quiet): a total worth counting.
    bool enabled() const { return enabled_; }
    void tick(const std::string& name);
    ~Progress();

  private:
    std::string verb_;
    bool enabled_;
    std::size_t count_ = 0;
    std::size_t total_ = 0;  // 0: unknown
};

}  // namespace gradcodec::cli
