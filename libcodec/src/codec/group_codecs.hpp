#pragma once
// What each group-capable codec lends the group API: its scores of one tensor, for planning
// the cut, and its encoder with the cut fixed from outside.
#include <cstdint>
#include <span>
#include <vector>

#include "codec/codec_def.hpp"
#include "gradcodec/group.hpp"
#include "select/cut.hpp"

namespace gradcodec {

// The spec's codec's row's group family; none for a name no row has.
GroupFamily group_family(const CodecSpec& spec);

// The scores a tensor of n values has: n, or the fft codec's bin count.
std::uint64_t fft_group_score_count(const CodecSpec& spec, std::uint64_t n);

// Calls `visit` once with the tensor's scores and their weights.
void sparse_group_scores(std::span<const float> x, const ScoreVisitor& visit);
void fft_group_scores(const CodecSpec& spec, std::span<const float> x, const ScoreVisitor& visit);
void dct_group_scores(const CodecSpec& spec, std::span<const float> x, const ScoreVisitor& visit);

// The payload of one tensor under the group's cut; `spent` grows by the tie weight used.
std::vector<std::uint8_t> encode_sparse_with_cut(const CodecSpec& spec, const TensorMeta& meta,
                                                 std::span<const float> x, const GroupCut& cut,
                                                 std::uint64_t tie_budget,
                                                 const EncodeOptions& options,
                                                 std::uint64_t& spent);
std::vector<std::uint8_t> encode_fft_with_cut(const CodecSpec& spec, const TensorMeta& meta,
                                              std::span<const float> x, const GroupCut& cut,
                                              std::uint64_t tie_budget,
                                              const EncodeOptions& options, std::uint64_t& spent);
std::vector<std::uint8_t> encode_dct_with_cut(const CodecSpec& spec, const TensorMeta& meta,
                                              std::span<const float> x, const GroupCut& cut,
                                              std::uint64_t tie_budget,
                                              const EncodeOptions& options, std::uint64_t& spent);

}  // namespace gradcodec
