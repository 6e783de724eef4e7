#include "support/device_choice.hpp"

namespace gradcodec::cli {

Execution choose_execution(const std::string& name) {
    if (name == "cpu") return Execution::cpu;
    if (name != "cuda")
        fail(ErrorKind::usage, "--device " + name + ": valid devices are cpu, cuda");
    const std::string problem = execution_problem(Execution::cuda);
    if (!problem.empty()) fail(ErrorKind::usage, "--device cuda: " + problem);
    return Execution::cuda;
}

}  // namespace gradcodec::cli
