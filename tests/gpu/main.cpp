// The gpu_tests runner: without a usable CUDA device it says so and exits 77, which ctest
// reports as skipped (SKIP_RETURN_CODE), never as passed.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "gradcodec/cuda.hpp"

int main(int argc, char** argv) {
    const std::string problem = gradcodec::cuda::device_problem();
    if (!problem.empty()) {
        std::printf("SKIPPED: gpu_tests need a usable CUDA device; here: %s\n", problem.c_str());
        return 77;
    }
    return Catch::Session().run(argc, argv);
}
