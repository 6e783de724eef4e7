#include <algorithm>
#include <string>
#include <vector>

#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec_h5z.h"
#include "gradcodec_h5z_params.hpp"

namespace gradcodec::h5z {
namespace {

[[noreturn]] void bad(const std::string& why) {
    fail(ErrorKind::bad_input, "gradcodec filter parameters: " + why);
}

}  // namespace

// The registry's filter_ok: fft and dct transform whole tensors, and lowrank needs a matrix
// where the filter sees a flat run of values; every other codec encodes any run of values on
// its own.
bool codec_runs_per_chunk(std::uint16_t codec_id) {
    static const std::vector<CodecCatalogEntry> catalog = codec_catalog();
    return std::any_of(catalog.begin(), catalog.end(),
                       [&](const CodecCatalogEntry& c) { return c.id == codec_id && c.filter_ok; });
}

std::vector<unsigned> pack_filter_params(const FilterParams& params) {
    if (params.spec.size() > GRADCODEC_H5Z_MAX_SPEC_LENGTH) {
        fail(ErrorKind::usage, "codec spec longer than " +
                                   std::to_string(GRADCODEC_H5Z_MAX_SPEC_LENGTH) +
                                   " bytes: " + params.spec);
    }
    std::vector<unsigned> cd(GRADCODEC_H5Z_CD_SPEC + (params.spec.size() + 3) / 4, 0u);
    cd[GRADCODEC_H5Z_CD_VERSION] = params.layout_version;
    cd[GRADCODEC_H5Z_CD_CODEC_ID] = params.codec_id;
    cd[GRADCODEC_H5Z_CD_DTYPE] = params.dtype_code;
    cd[GRADCODEC_H5Z_CD_COUNT_LOW] = static_cast<unsigned>(params.element_count & 0xFFFFFFFFu);
    cd[GRADCODEC_H5Z_CD_COUNT_HIGH] = static_cast<unsigned>(params.element_count >> 32);
    cd[GRADCODEC_H5Z_CD_FLAGS] = params.flags;
    cd[GRADCODEC_H5Z_CD_SPEC_LENGTH] = static_cast<unsigned>(params.spec.size());
    for (std::size_t i = 0; i < params.spec.size(); ++i) {
        const auto byte = static_cast<unsigned char>(params.spec[i]);
        cd[GRADCODEC_H5Z_CD_SPEC + i / 4] |= static_cast<unsigned>(byte) << (8 * (i % 4));
    }
    return cd;
}

FilterParams unpack_filter_params(std::span<const unsigned> cd) {
    if (cd.size() < GRADCODEC_H5Z_CD_SPEC) {
        bad(std::to_string(cd.size()) + " values, fewer than the " +
            std::to_string(GRADCODEC_H5Z_CD_SPEC) + " of layout version 1");
    }
    FilterParams params;
    params.layout_version = cd[GRADCODEC_H5Z_CD_VERSION];
    if (params.layout_version != GRADCODEC_H5Z_LAYOUT_VERSION) {
        bad("layout version " + std::to_string(params.layout_version) +
            " is not supported (this gradcodec reads version 1)");
    }
    if (cd[GRADCODEC_H5Z_CD_CODEC_ID] > 0xFFFFu || cd[GRADCODEC_H5Z_CD_DTYPE] > 0xFFu) {
        bad("codec id or dtype code out of range");
    }
    params.codec_id = static_cast<std::uint16_t>(cd[GRADCODEC_H5Z_CD_CODEC_ID]);
    params.dtype_code = static_cast<std::uint8_t>(cd[GRADCODEC_H5Z_CD_DTYPE]);
    params.element_count = std::uint64_t{cd[GRADCODEC_H5Z_CD_COUNT_LOW]} |
                           (std::uint64_t{cd[GRADCODEC_H5Z_CD_COUNT_HIGH]} << 32);
    params.flags = cd[GRADCODEC_H5Z_CD_FLAGS];
    if ((params.flags & ~GRADCODEC_H5Z_FLAG_ALLOW_NONFINITE) != 0) {
        bad("unknown flags " + std::to_string(params.flags));
    }
    const std::size_t length = cd[GRADCODEC_H5Z_CD_SPEC_LENGTH];
    if (length > GRADCODEC_H5Z_MAX_SPEC_LENGTH ||
        cd.size() != GRADCODEC_H5Z_CD_SPEC + (length + 3) / 4) {
        bad("spec length " + std::to_string(length) + " disagrees with " +
            std::to_string(cd.size()) + " values");
    }
    params.spec.resize(length);
    for (std::size_t i = 0; i < length; ++i) {
        params.spec[i] =
            static_cast<char>((cd[GRADCODEC_H5Z_CD_SPEC + i / 4] >> (8 * (i % 4))) & 0xFFu);
    }
    return params;
}

}  // namespace gradcodec::h5z
