#pragma once
// inspect of an HDF5 file written by repack: per dataset, what its chunks' frames cost.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "commands/inspect_report.hpp"
#include "gradcodec/stream.hpp"

namespace gradcodec::cli {

struct InspectedDataset {
    InspectRow row;                  // everything but metrics
    TensorRecord tensor;             // path, dtype and shape, for --against
    std::vector<std::byte> decoded;  // the values as HDF5 reads them through the filter
};

// Visits every dataset of `file` in walk order. Filtered datasets report the bytes of their
// frames and the payload statistics of each frame; other datasets report their HDF5 storage
// as "unfiltered". Returns the file's size, the total's bytes_out.
std::uint64_t inspect_hdf5_file(const std::string& file,
                                const std::function<void(InspectedDataset&)>& visit);

}  // namespace gradcodec::cli
