#pragma once
// Small real streams built through the public API (StreamWriter + encode_tensor), for the
// damage and limit tests and for the fuzzers' seed corpus (tests/fuzz/make_seed_corpus.cpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gradcodec/codec.hpp"
#include "gradcodec/stream.hpp"

namespace gctest {

struct SampleTensor {
    std::string path;
    gradcodec::DType dtype;
    std::vector<std::uint64_t> shape;
    std::vector<std::byte> data;  // little-endian elements
};

// Gradient-like values: mostly small, a few large of either sign, as a dump holds them.
std::vector<std::byte> gradient_like_values(gradcodec::DType dtype, std::uint64_t count,
                                            std::uint32_t seed);

// One tensor of each dtype family: f32, f16, bf16, f64 weights, an i64 step, a bool mask.
std::vector<SampleTensor> sample_tensors();

// Numeric, fixed-string and variable-length-string attributes, as h5py writes them.
std::vector<gradcodec::Attribute> sample_attributes();

// The specs worth seeding with: those of `candidates` (and each registered codec's bare
// name) that this build accepts, so codecs added later are picked up without edits here.
std::vector<std::string> usable_codec_specs();

// A whole dump: root group with attributes, a step group, the sample tensors (float ones
// encoded with the spec `float_specs[i % size]`, others losslessly), one more small float
// tensor for each spec left over, a soft and an external link, the end marker. A float spec
// the codec refuses falls back to lossless.
std::vector<std::uint8_t> sample_stream(const std::vector<std::string>& float_specs);

// The record a codec writes for one tensor, for the payload fuzzer's seeds.
gradcodec::TensorRecord encode_record(const SampleTensor& tensor, const std::string& spec);

}  // namespace gctest
