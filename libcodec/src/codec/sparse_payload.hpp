#pragma once
// Writing the threshold-sparse payload (format-spec/codec-sparse.md) from a chosen set of
// positions and values: shared by the CPU encoder and the GPU one, whose selections differ
// in where they run but must give the same bytes.
#include <cstdint>
#include <span>
#include <vector>

#include "codec/sparse_params.hpp"
#include "gradcodec/codec.hpp"

namespace gradcodec {

inline constexpr std::uint8_t kSparseFlagPositionsZstd = 1;
inline constexpr std::uint8_t kSparseFlagValuesZstd = 2;

struct SparseChoice {
    std::uint8_t dist = 0;    // SIDCo only
    std::uint8_t stages = 0;  // SIDCo only
    double target = 0;        // the density asked for
    float threshold = 0;      // the threshold the selector used
};

// `indices` ascending, `values[i]` the value at indices[i], out of a tensor of n elements.
std::vector<std::uint8_t> write_sparse_payload(const SparseParams& p, const TensorMeta& meta,
                                               const SparseChoice& choice,
                                               std::span<const std::uint64_t> indices,
                                               std::span<const float> values, std::uint64_t n,
                                               const EncodeOptions& options);

}  // namespace gradcodec
