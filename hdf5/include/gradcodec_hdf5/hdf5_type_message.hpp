#pragma once
// HDF5 type descriptions as typed dataset records carry them: the bytes of H5Tencode, which are
// `03 00` followed by an HDF5 datatype message (HDF5 File Format Specification, "Datatype
// Message"). libhdf5's H5Tdecode trusts its input and reads as far as the message says, so a
// description from a stream is checked here, field by field within its bytes, before
// libhdf5 sees it.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gradcodec_hdf5/hdf5_handle.hpp"

namespace gradcodec::hdf5 {

// Type nesting deeper than this (a compound in an array in a sequence ...) is refused.
inline constexpr int kMaxTypeDepth = 16;

// What decode_type would refuse in `description`, or "" when it would accept it. encode asks
// before it writes a type, so that what encode accepts, decode rebuilds.
std::string description_problem(std::span<const std::uint8_t> description);

// H5Tencode's bytes for `type`.
std::vector<std::uint8_t> encode_type(hid_t type, const std::string& where);

// Checks `description` as a whole (every field within its bytes, exactly consumed, sizes
// consistent, no reference or time class, nesting within kMaxTypeDepth), then decodes it.
// Error(damaged_stream) naming `where` when it is not a type gradcodec writes.
Hid decode_type(std::span<const std::uint8_t> description, const std::string& where);

}  // namespace gradcodec::hdf5
