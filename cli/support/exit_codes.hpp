#pragma once
// Exit codes are an interface: scripts branch on them. docs/cli.md and --help document them.
#include "gradcodec/error.hpp"

namespace gradcodec::cli {

enum ExitCode : int {
    kExitOk = 0,
    kExitUsage = 2,     // bad arguments, bad codec spec, refusing to overwrite
    kExitBadInput = 3,  // bad input data or a damaged / unsupported stream, caps exceeded
    kExitIo = 4,        // reading or writing failed (missing file, full disk)
};

inline int exit_code_for(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::usage:
            return kExitUsage;
        case ErrorKind::io:
            return kExitIo;
        default:
            return kExitBadInput;
    }
}

inline constexpr const char* kExitCodeHelp =
    "Exit codes: 0 ok, 2 usage error, 3 bad input or damaged stream, 4 I/O failure.";

}  // namespace gradcodec::cli
