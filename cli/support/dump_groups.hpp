#pragma once
// The float tensors of a dump grouped by their HDF5 group (a training step), found by a walk
// that reads no values, so each step can be planned, swept or simulated as a unit.
#include <string>
#include <vector>

#include "gradcodec/stream.hpp"
#include "gradcodec/tensor.hpp"
#include "gradcodec_hdf5/hdf5_handle.hpp"

namespace gradcodec::cli {

using namespace gradcodec::hdf5;  // HDF5 dumps: gradcodec_hdf5_io (hdf5/)

struct UnitTensor {
    std::string path;  // "/step_00010/fc.weight"
    TensorMeta meta;   // named "FILE: step_00010/fc.weight" for messages
    std::vector<Attribute> attributes;
};

struct DumpGroup {
    std::string path;  // "/step_00010"
    std::vector<UnitTensor> tensors;
};

// The group holding `path`: "/step_00010" for "/step_00010/fc.weight", "/" for "/w".
std::string parent_group(const std::string& path);

// Every HDF5 group with at least one float dataset that `select` picks, in walk order, its
// tensors in walk order.
std::vector<DumpGroup> float_groups(const std::string& file, hid_t root,
                                    const std::vector<std::string>& select);

// The values of one tensor, read again by path; the dtype and shape must not have changed.
std::vector<std::byte> load_tensor(const std::string& file, hid_t root, const UnitTensor& t);

}  // namespace gradcodec::cli
