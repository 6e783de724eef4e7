#pragma once
// Which gradcodec dtype an HDF5 datatype holds, for the CLI and the filter plugin alike.
#include <hdf5.h>

#include <optional>

#include "gradcodec/dtype.hpp"

namespace gradcodec::hdf5 {

// The logical dtype of an HDF5 float or integer type, in any byte order: IEEE f32 and f64,
// f16 and bf16 as h5py lays them out (recognised by their field sizes), and integers of 1, 2,
// 4 and 8 bytes; nullopt for every other float or integer, and for the other type classes.
std::optional<DType> dtype_of_number_type(hid_t type);

}  // namespace gradcodec::hdf5
