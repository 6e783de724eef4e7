#pragma once
// `--device cpu|cuda`: the library's execution policy (Execution in gradcodec/codec.hpp). cuda
// needs a build with GRADCODEC_CUDA and a usable GPU; otherwise the command stops with
// Error(usage) (exit 2) before any output. On cuda, the tensors the GPU path handles run there
// and the rest run on the CPU; the stream format is the same.
#include <string>

#include "gradcodec/gradcodec.hpp"

namespace gradcodec::cli {

// Parses the flag's value and, for cuda, checks that a device is usable.
Execution choose_execution(const std::string& name);

inline constexpr const char* kDeviceHelp =
    "Where to run: cpu (default) or cuda. cuda encodes f32 tensors with fft (select=topk), topk "
    "or threshold and decodes fft on the GPU, everything else on the CPU; without a usable GPU, "
    "or in a build without CUDA, it stops with exit 2 (a CUDA failure mid-run is exit 4)";

}  // namespace gradcodec::cli
