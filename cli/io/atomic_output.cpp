#include "io/atomic_output.hpp"

#include <cstdlib>

#include "gradcodec/error.hpp"
#include "io/signal_cleanup.hpp"

namespace gradcodec::cli {
namespace {

constexpr TempNameHooks kSignalCleanup{set_pending_temp, clear_pending_temp};

[[noreturn]] void lost_race(const std::string& path) {
    fail(ErrorKind::usage,
         path + ": already exists: it appeared while gradcodec ran (use --force to replace it)");
}

}  // namespace

AtomicOutput::AtomicOutput(std::string path, bool replace) {
    try {
        file_.emplace(path, replace, kSignalCleanup);
    } catch (const FileExistsError&) {
        lost_race(path);  // check_output_path saw no file there
    }
}

AtomicOutput::AtomicOutput(Scratch) {
    const char* tmpdir = std::getenv("TMPDIR");
    file_.emplace(AtomicFile::Scratch{}, tmpdir && *tmpdir ? tmpdir : "/tmp", kSignalCleanup);
}

void AtomicOutput::commit() {
    try {
        file_->commit();
    } catch (const FileExistsError&) {
        lost_race(file_->path());
    }
}

}  // namespace gradcodec::cli
