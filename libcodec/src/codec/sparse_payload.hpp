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

class ByteOutput;

inline constexpr std::uint8_t kSparseFlagPositionsZstd = 1;
inline constexpr std::uint8_t kSparseFlagValuesZstd = 2;

// The largest sections a decoder accepts, after decompression; checked before anything is
// allocated. Encoders check the same limits before they write.
inline constexpr std::uint64_t kSparseValueSlack = 4096;  // value bytes beyond 4 per value
std::uint64_t sparse_position_limit(std::uint64_t n);
std::uint64_t sparse_value_limit(std::uint64_t count);

// The threshold field as written: the selector's threshold, or +inf where that is NaN (the
// k-th magnitude of a tensor with at least k NaNs, which rank above +inf). The field is never
// NaN, so decoders can refuse NaN as damage.
float recorded_threshold(float threshold);

struct SparseChoice {
    std::uint8_t dist = 0;    // SIDCo only
    std::uint8_t stages = 0;  // SIDCo only
    double target = 0;        // the density asked for
    float threshold = 0;      // the threshold the selector used
};

// `indices` ascending, `values[i]` the value at indices[i], out of a tensor of n elements.
// The payload decodes: a values=rangeq section that would pass sparse_value_limit (only with
// many non-finite kept values, each costing 12 bytes as an exception: more than count/6 + 340
// of them at 16 bits) is written as f32 values instead, smaller and exact; values whose rounding
// would overflow the tensor's dtype are refused as bad input.
void write_sparse_payload(const SparseParams& p, const TensorMeta& meta, const SparseChoice& choice,
                          std::span<const std::uint64_t> indices, std::span<const float> values,
                          std::uint64_t n, const EncodeOptions& options, ByteOutput& out);

}  // namespace gradcodec
