#pragma once
// Which gradcodec dtype an HDF5 dataset's type is, as the filter sees its bytes.
#include <hdf5.h>

#include <optional>

#include "gradcodec/dtype.hpp"

namespace gradcodec::h5z {

// Little-endian IEEE floats (f16, bf16 laid out as h5py does, f32, f64) and little-endian
// integers; nullopt for anything else, including big-endian types, whose chunk bytes a
// frame cannot carry as they are.
std::optional<DType> dtype_of_dataset_type(hid_t type);

}  // namespace gradcodec::h5z
