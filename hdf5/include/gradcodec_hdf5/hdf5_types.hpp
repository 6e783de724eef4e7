#pragma once
// Mapping between HDF5 datatypes and gradcodec's DType, and attribute transfer.
#include <hdf5.h>

#include <optional>
#include <string>
#include <vector>

#include "gradcodec/stream.hpp"
#include "gradcodec_hdf5/hdf5_handle.hpp"

namespace gradcodec::hdf5 {

// The logical dtype of an HDF5 type (any byte order), or nullopt when gradcodec cannot carry it.
std::optional<DType> dtype_of_hdf5(hid_t type);

// A little-endian memory/file type for `dtype`; f16 and bf16 are built the way h5py builds float16.
Hid hdf5_type_of(DType dtype);

std::string hdf5_class_name(hid_t type);

// All attributes of an object, by name; `where` names the object for messages.
std::vector<Attribute> read_attributes(hid_t object, const std::string& where);
void write_attributes(hid_t object, const std::vector<Attribute>& attributes,
                      const std::string& where);

// The dataspace shape; an error for a null dataspace.
std::vector<std::uint64_t> dataspace_shape(hid_t space, const std::string& where);
Hid make_dataspace(const std::vector<std::uint64_t>& shape, const std::string& where);

}  // namespace gradcodec::hdf5
