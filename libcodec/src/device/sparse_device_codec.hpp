#pragma once
// The threshold-sparse codec (id 4) with select=topk or threshold, encoding a tensor in device
// memory (f32): the finite screen, the selection (exact radix top-k, or |x| > T), the
// compaction of the kept indices and the gather of their values run on the GPU; the host
// writes the payload (format-spec/codec-sparse.md) from the k indices and values.
#include <cstdint>
#include <vector>

#include "codec/sparse_params.hpp"
#include "common/byte_io.hpp"
#include "gradcodec/codec.hpp"

namespace gradcodec::cuda {

// Appends the payload to `out`.
void encode_sparse_on_device(const SparseParams& params, const TensorMeta& meta, const float* x,
                             const EncodeOptions& options, ByteOutput& out);

}  // namespace gradcodec::cuda
