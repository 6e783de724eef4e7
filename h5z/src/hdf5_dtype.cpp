#include "hdf5_dtype.hpp"

#include "gradcodec_hdf5/dtype_of_hdf5.hpp"

namespace gradcodec::h5z {

std::optional<DType> dtype_of_dataset_type(hid_t type) {
    if (H5Tget_size(type) > 1 && H5Tget_order(type) != H5T_ORDER_LE) return std::nullopt;
    return hdf5::dtype_of_number_type(type);
}

}  // namespace gradcodec::h5z
