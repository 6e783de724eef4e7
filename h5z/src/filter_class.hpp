#pragma once
// The filter's HDF5 class: what the plugin entry point hands HDF5 and what
// gradcodec_h5z_register registers.
#include <hdf5.h>

namespace gradcodec::h5z {

const H5Z_class2_t* filter_class();

}  // namespace gradcodec::h5z
