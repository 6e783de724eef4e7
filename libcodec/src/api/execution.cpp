// The execution policy: the CPU always runs; cuda runs when this build has the device code
// and the driver finds a device.
#include "api/execution.hpp"

#include <string>

#include "gradcodec/error.hpp"

#if defined(GRADCODEC_HAVE_CUDA)
#include "gradcodec/cuda.hpp"
#endif

namespace gradcodec {

std::string execution_problem(Execution execution) {
    if (execution == Execution::cpu) return {};
#if defined(GRADCODEC_HAVE_CUDA)
    return cuda::device_problem();
#else
    return "this gradcodec was built without CUDA (GRADCODEC_CUDA=OFF)";
#endif
}

void require_execution(Execution execution) {
    const std::string problem = execution_problem(execution);
    if (!problem.empty()) fail(ErrorKind::usage, "execution cuda: " + problem);
}

}  // namespace gradcodec
