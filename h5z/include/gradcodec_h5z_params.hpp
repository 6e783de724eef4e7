#pragma once
// The filter's cd_values as a plain struct, for C++ writers and readers of filtered datasets
// (format-spec/FILTER.md).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gradcodec::h5z {

struct FilterParams {
    std::uint32_t layout_version = 1;
    std::uint16_t codec_id = 0;       // 0: set_local fills it from the spec
    std::uint8_t dtype_code = 0;      // 0: set_local fills it from the dataset's type
    std::uint64_t element_count = 0;  // 0: set_local fills it from the chunk dims
    std::uint32_t flags = 0;
    std::string spec;  // e.g. "rangeq:bits=8"
};

// Codecs whose payload stands alone per chunk, as the registry's filter_ok says: lossless,
// cast, rangeq, the threshold selectors (which then select per chunk) and the stochastic
// quantizers. fft, dct and lowrank work on whole tensors: the stream carries them.
bool codec_runs_per_chunk(std::uint16_t codec_id);

std::vector<unsigned> pack_filter_params(const FilterParams& params);

// Throws gradcodec::Error(bad_input) naming what is wrong: an unknown layout version, a
// length that disagrees with the number of values, unknown flags.
FilterParams unpack_filter_params(std::span<const unsigned> cd_values);

}  // namespace gradcodec::h5z
