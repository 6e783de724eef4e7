// fuzz_hdf5 counts a crashed child against us unless every stack of its sanitizer report is
// owned by libhdf5 (tests/fuzz/crash_origin.hpp). The reports below are cut from real ones.
#include <catch2/catch.hpp>
#include <string>

#include "../../fuzz/crash_origin.hpp"

namespace {

const std::string kHdf5Frame =
    " (/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x167b8d) (BuildId: e923ff05)\n";
const std::string kOurFrame = " /src/hdf5/src/hdf5_dump.cpp:412:9\n";

// libhdf5 copying a corrupted global-heap object while converting a vlen string.
const std::string kLibhdf5Report =
    "==1==ERROR: AddressSanitizer: memcpy-param-overlap: memory ranges overlap\n"
    "    #0 0x5585 in __interceptor_memcpy (/build-fuzz/cli/gradcodec+0x244285)\n"
    "    #1 0x7f4b in H5HG_read" +
    kHdf5Frame +
    "    #2 0x7f4b  (/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x2beeff)\n"
    "    #3 0x5585 in gradcodec::cli::read_attributes(long)" +
    kOurFrame +
    "\n"
    "allocated by thread T0 here:\n"
    "    #0 0x5585 in malloc (/build-fuzz/cli/gradcodec+0x2ad00e)\n"
    "    #1 0x7f4b  (/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x1233e4)\n"
    "\n"
    "SUMMARY: AddressSanitizer: memcpy-param-overlap in __interceptor_memcpy\n";

}  // namespace

TEST_CASE("a report whose every stack starts in libhdf5 is libhdf5's crash", "[fuzz]") {
    const auto origin = gcfuzz::crash_origin(kLibhdf5Report);
    CHECK(origin.in_libhdf5);
    CHECK(origin.frame.find("H5HG_read") != std::string::npos);
}

TEST_CASE("libhdf5 overrunning a buffer our code allocated is our finding", "[fuzz]") {
    const std::string report =
        "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020\n"
        "    #0 0x5585 in __asan_memcpy (/build-fuzz/cli/gradcodec+0x2442)\n"
        "    #1 0x7f4b in H5D__contig_readvv_sieve_cb" +
        kHdf5Frame +
        "0x6020 is located 0 bytes to the right of 16-byte region\n"
        "allocated by thread T0 here:\n"
        "    #0 0x5585 in operator new(unsigned long) (/build-fuzz/cli/gradcodec+0x2ad0)\n"
        "    #1 0x5585 in gradcodec::cli::DumpDataset::read(std::string const&) const" +
        kOurFrame;
    const auto origin = gcfuzz::crash_origin(report);
    CHECK_FALSE(origin.in_libhdf5);
    CHECK(origin.frame.find("H5D__contig") != std::string::npos);
}

TEST_CASE("libhdf5 overrunning a chunk buffer our filter allocated through HDF5 is ours",
          "[fuzz]") {
    // The filter returns its chunk buffers in memory from H5allocate_memory, as HDF5 requires:
    // the allocation stack passes through libhdf5 before it reaches the filter.
    const std::string report =
        "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020\n"
        "    #0 0x5585 in __asan_memcpy (/build-fuzz/cli/gradcodec+0x2442)\n"
        "    #1 0x7f4b  (/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x2beeff)\n"
        "0x6020 is located 0 bytes to the right of 16-byte region\n"
        "allocated by thread T0 here:\n"
        "    #0 0x5585 in malloc (/build-fuzz/cli/gradcodec+0x2ad00e)\n"
        "    #1 0x7f4b in H5MM_malloc" +
        kHdf5Frame + "    #2 0x7f4b in H5allocate_memory" + kHdf5Frame +
        "    #3 0x5585 in gradcodec::h5z::(anonymous namespace)::allocate(unsigned long) "
        "/src/h5z/src/filter_class.cpp:213:9\n";
    const auto origin = gcfuzz::crash_origin(report);
    CHECK_FALSE(origin.in_libhdf5);
}

TEST_CASE("libhdf5 freeing a bad pointer of its own stays libhdf5's", "[fuzz]") {
    const std::string report =
        "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000\n"
        "    #0 0x5585 in __asan::Allocator::Deallocate (/build-fuzz/cli/gradcodec+0x1)\n"
        "    #1 0x5585 in free (/build-fuzz/cli/gradcodec+0x2)\n"
        "    #2 0x7f4b in H5MM_xfree" +
        kHdf5Frame + "    #3 0x7f4b in H5O_msg_reset" + kHdf5Frame +
        "    #4 0x7f4b in H5G__link_release_table" + kHdf5Frame +
        "    #5 0x5585 in gradcodec::cli::walk_dump(std::string const&)" + kOurFrame;
    const auto origin = gcfuzz::crash_origin(report);
    CHECK(origin.in_libhdf5);
    CHECK(origin.frame.find("H5O_msg_reset") != std::string::npos);
}

TEST_CASE("a crash whose first own frame is ours is our finding", "[fuzz]") {
    const std::string report =
        "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000\n"
        "    #0 0x7f00 in __memmove_avx_unaligned_erms (/lib/x86_64-linux-gnu/libc.so.6+0x1)\n"
        "    #1 0x5585 in gradcodec::cli::read_values_into(std::string const&, long)" +
        kOurFrame + "    #2 0x7f4b in H5Dread" + kHdf5Frame;
    const auto origin = gcfuzz::crash_origin(report);
    CHECK_FALSE(origin.in_libhdf5);
    CHECK(origin.frame.find("read_values_into") != std::string::npos);
}

// With Debian's libc6-dbg installed (valgrind depends on it) glibc's frames resolve to its
// source lines; the child's stack_trace_format adds each frame's module after them.
const std::string kLibcSourceFrame =
    "    #0 0x7fe8 in __memcpy_avx512_unaligned_erms "
    "string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:362 "
    "(libc.so.6+0x16d885) (BuildId: 93ac61ec)\n"
    "    #1 0x5585 in __interceptor_memcpy (/build-fuzz/cli/gradcodec+0x2442) "
    "(gradcodec+0x2442)\n";

TEST_CASE("glibc's frame resolved to a source line does not own a libhdf5 crash", "[fuzz]") {
    const std::string report =
        "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000\n" +
        kLibcSourceFrame +
        "    #2 0x7f4b in H5D__compact_readvv (/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x1) "
        "(libhdf5_serial.so.103+0x1)\n";
    const auto origin = gcfuzz::crash_origin(report);
    CHECK(origin.in_libhdf5);
    CHECK(origin.frame.find("H5D__compact_readvv") != std::string::npos);
}

TEST_CASE("glibc's frame resolved to a source line passes ownership to our caller", "[fuzz]") {
    const std::string report =
        "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000\n" +
        kLibcSourceFrame +
        "    #2 0x5585 in gradcodec::cli::read_values_into(std::string const&, long) "
        "/src/hdf5/src/hdf5_dump.cpp:412:9 (gradcodec+0x3)\n";
    const auto origin = gcfuzz::crash_origin(report);
    CHECK_FALSE(origin.in_libhdf5);
    CHECK(origin.frame.find("read_values_into") != std::string::npos);
}

TEST_CASE("a UBSan report in our code is our finding", "[fuzz]") {
    const std::string report =
        "/src/hdf5/src/hdf5_dump.cpp:88:20: runtime error: signed integer overflow\n"
        "    #0 0x5585 in gradcodec::cli::element_count(std::vector<unsigned long> const&)" +
        kOurFrame;
    CHECK_FALSE(gcfuzz::crash_origin(report).in_libhdf5);
}

TEST_CASE("a thread's creation stack does not decide whose crash it is", "[fuzz]") {
    const std::string report =
        "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000010\n"
        "    #0 0x7f4b in H5C_protect" +
        kHdf5Frame +
        "Thread T1 created by T0 here:\n"
        "    #0 0x5585 in pthread_create (/build-fuzz/cli/gradcodec+0x22)\n"
        "    #1 0x5585 in std::thread::_M_start_thread" +
        kOurFrame;
    CHECK(gcfuzz::crash_origin(report).in_libhdf5);
}

TEST_CASE("a child that died without a sanitizer report is ours to look at", "[fuzz]") {
    const auto origin = gcfuzz::crash_origin("gradcodec: writing out.gcs\n");
    CHECK_FALSE(origin.in_libhdf5);
    CHECK(origin.frame == "no sanitizer report");
    CHECK_FALSE(gcfuzz::crash_origin("==1==ERROR: AddressSanitizer: hard rss limit exhausted\n")
                    .in_libhdf5);
}
