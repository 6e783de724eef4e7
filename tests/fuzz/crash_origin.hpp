#pragma once
// Whose crash is it? fuzz_hdf5 reads the sanitizer report a crashed or hung child printed
// (ASan symbolizes every frame with its function and module or source line). In each stack,
// the first frame that is neither the sanitizer runtime (its interceptors, malloc/new), nor a
// system library libhdf5 calls (libc, libm, libstdc++, zlib, szip/libaec, the loader), nor
// libhdf5's memory functions (H5allocate_memory, H5resize_memory, H5free_memory and the H5MM_
// ones under them, which gradcodec's filter calls for the chunk buffers it hands HDF5) is the
// stack's owner. A report is libhdf5's when every stack in it (the access, allocation and
// free stacks of a memory error, each leak's allocation) is owned by a libhdf5 frame; any
// stack owned by our code makes it ours: for example libhdf5 overrunning a buffer we sized.
// A child that died with no stack at all is ours too, to be looked at.
// A frame the symbolizer resolved to a source line names no module by default (glibc's, with
// Debian's libc6-dbg, reads "string/../sysdeps/...S:362"), so fuzz_hdf5 has the child print
// each frame's module too (stack_trace_format's %M, "(libc.so.6+0x16d8aa)"); a system library
// is recognised by its module name after a '/' (a path) or a '(' (a basename).
#include <sstream>
#include <string>

namespace gcfuzz {

struct CrashOrigin {
    bool in_libhdf5 = false;
    std::string frame;  // the first stack's owner frame, or why there is none
};

namespace detail {

inline bool contains(const std::string& text, const char* part) {
    return text.find(part) != std::string::npos;
}

inline bool is_frame(const std::string& line) {
    const auto start = line.find_first_not_of(' ');
    return start != std::string::npos && line.compare(start, 1, "#") == 0 &&
           line.find(" 0x", start) != std::string::npos;
}

inline bool frame_number_is_zero(const std::string& line) {
    return line.compare(line.find_first_not_of(' '), 3, "#0 ") == 0;
}

// Whether `frame` names module `name` (a prefix of its file name, "libc.so") as a path or as
// a basename.
inline bool names_module(const std::string& frame, const std::string& name) {
    return contains(frame, ("/" + name).c_str()) || contains(frame, ("(" + name).c_str());
}

inline bool is_runtime_or_system(const std::string& frame) {
    for (const char* part : {" in __asan",
                             " in __interceptor",
                             " in ___interceptor",
                             " in __sanitizer",
                             " in __ubsan",
                             " in __lsan",
                             " in malloc ",
                             " in calloc ",
                             " in realloc ",
                             " in free ",
                             " in operator new",
                             " in operator delete",
                             " in posix_memalign ",
                             " in aligned_alloc ",
                             "compiler-rt",
                             "libclang_rt",
                             " in H5allocate_memory ",
                             " in H5resize_memory ",
                             " in H5free_memory ",
                             " in H5MM_malloc ",
                             " in H5MM_calloc ",
                             " in H5MM_realloc ",
                             " in H5MM_xfree "}) {
        if (contains(frame, part)) return true;
    }
    for (const char* module : {"libc.so", "libc-", "libm.so", "libstdc++", "libgcc_s", "libz.so",
                               "libsz.so", "libaec.so", "ld-linux", "libpthread"}) {
        if (names_module(frame, module)) return true;
    }
    return false;
}

}  // namespace detail

inline CrashOrigin crash_origin(const std::string& report) {
    std::istringstream lines(report);
    std::string line, previous;
    bool reporting = false, in_stack = false, skip_stack = false, owner_found = false;
    int stacks = 0, libhdf5_stacks = 0;
    CrashOrigin origin;
    while (std::getline(lines, line)) {
        if (detail::contains(line, "ERROR: ") || detail::contains(line, "runtime error:"))
            reporting = true;
        if (!reporting) {
            previous = line;
            continue;
        }
        if (!detail::is_frame(line)) {
            in_stack = false;
            previous = line;
            continue;
        }
        if (!in_stack || detail::frame_number_is_zero(line)) {
            in_stack = true;
            owner_found = false;
            // A thread's creation stack says where it started, not what went wrong.
            skip_stack = detail::contains(previous, "created by");
            if (!skip_stack) ++stacks;
        }
        previous = line;
        if (skip_stack || owner_found || detail::is_runtime_or_system(line)) continue;
        owner_found = true;
        const bool libhdf5 = detail::contains(line, "libhdf5");
        if (libhdf5) ++libhdf5_stacks;
        if (origin.frame.empty()) origin.frame = line.substr(line.find_first_not_of(' '));
    }
    if (stacks == 0) origin.frame = reporting ? "a report with no stack" : "no sanitizer report";
    origin.in_libhdf5 = stacks > 0 && libhdf5_stacks == stacks;
    return origin;
}

}  // namespace gcfuzz
