// cuFFT is loaded on first use, not linked: these run in any GRADCODEC_CUDA build, with or
// without a GPU (loading the library and resolving its functions needs no device).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cufft_library.hpp"
#include "gradcodec/error.hpp"

using namespace gradcodec;

namespace {

ErrorKind kind_of_failed_load(const std::vector<std::string>& candidates, std::string& message) {
    try {
        cuda::load_cufft(candidates);
    } catch (const Error& e) {
        message = e.what();
        return e.kind();
    }
    FAIL("load_cufft succeeded");
    return ErrorKind::io;
}

}  // namespace

TEST_CASE("cuFFT resolves from the toolkit the build was configured against", "[cufft]") {
    const cuda::CufftApi& api = cuda::cufft();
    CHECK(api.create != nullptr);
    CHECK(api.make_plan_many64 != nullptr);
    CHECK(api.exec_r2c != nullptr);
    CHECK(api.exec_c2r != nullptr);
    CHECK(api.destroy != nullptr);
    CHECK(&cuda::cufft() == &api);
}

TEST_CASE(
    "A cuFFT that cannot be opened is reported as an unavailable device, naming each file "
    "tried",
    "[cufft]") {
    std::string message;
    const ErrorKind kind = kind_of_failed_load(
        {"libgradcodec-missing-cufft.so.1", "/nonexistent/lib/libcufft.so.99"}, message);
    CHECK(kind == ErrorKind::usage);
    CHECK(message.find("execution cuda: cuFFT is unavailable") != std::string::npos);
    CHECK(message.find("libgradcodec-missing-cufft.so.1") != std::string::npos);
    CHECK(message.find("/nonexistent/lib/libcufft.so.99") != std::string::npos);
    CHECK(message.find("cannot open shared object file") != std::string::npos);
}

TEST_CASE("A library without cuFFT's functions is refused, naming the missing function",
          "[cufft]") {
    std::string message;
    const ErrorKind kind = kind_of_failed_load({"libc.so.6"}, message);
    CHECK(kind == ErrorKind::usage);
    CHECK(message.find("libc.so.6 has no cufftCreate") != std::string::npos);
}
