#pragma once
// Checks of the execution policy, shared by Codec::compile and decode_tensor.
#include "gradcodec/codec.hpp"

namespace gradcodec {

// Throws Error(usage) with execution_problem's reason when `execution` cannot run here.
void require_execution(Execution execution);

}  // namespace gradcodec
