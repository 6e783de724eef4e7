#include "io/filtered_dataset.hpp"

#include <algorithm>
#include <cstring>

#include "gradcodec_h5z.h"

namespace gradcodec::cli {

void register_gradcodec_filter() {
    start_hdf5();
    if (gradcodec_h5z_register() < 0)
        fail(ErrorKind::io, "cannot register gradcodec's HDF5 filter");
}

std::vector<std::uint64_t> chunk_dims_for(const std::vector<std::uint64_t>& shape,
                                          std::uint64_t max_elements) {
    std::vector<std::uint64_t> chunk(shape.size());
    // HDF5 chunk dims are at least 1, even along an empty dimension.
    std::transform(shape.begin(), shape.end(), chunk.begin(),
                   [](std::uint64_t d) { return std::max<std::uint64_t>(d, 1); });
    const std::uint64_t cap = std::max<std::uint64_t>(max_elements, 1);
    for (std::size_t d = 0; d < chunk.size(); ++d) {
        std::uint64_t inner = 1;
        for (std::size_t e = d + 1; e < chunk.size(); ++e) inner *= chunk[e];
        if (chunk[d] <= cap / inner) break;
        chunk[d] = std::max<std::uint64_t>(1, cap / inner);
    }
    return chunk;
}

Hid filtered_creation_list(const std::vector<std::uint64_t>& chunk_dims,
                           const h5z::FilterParams& params, const std::string& where) {
    Hid dcpl = checked(H5Pcreate(H5P_DATASET_CREATE), ErrorKind::io, where,
                       "cannot create a property list");
    const std::vector<hsize_t> dims(chunk_dims.begin(), chunk_dims.end());
    check_status(
        H5Pset_chunk(dcpl.get(), static_cast<int>(dims.size()), dims.data()), ErrorKind::usage,
        where, "cannot chunk the dataset that way (HDF5 chunks hold at most 4 GiB; lower --chunk)");
    const std::vector<unsigned> cd = h5z::pack_filter_params(params);
    check_status(H5Pset_filter(dcpl.get(), GRADCODEC_H5Z_FILTER_ID, H5Z_FLAG_MANDATORY, cd.size(),
                               cd.data()),
                 ErrorKind::io, where, "cannot add gradcodec's filter");
    return dcpl;
}

std::optional<h5z::FilterParams> gradcodec_filter_of(hid_t dataset, const std::string& where) {
    Hid dcpl = checked(H5Dget_create_plist(dataset), ErrorKind::bad_input, where,
                       "cannot read its creation list");
    if (H5Pget_nfilters(dcpl.get()) != 1) return std::nullopt;
    std::vector<unsigned> cd(GRADCODEC_H5Z_CD_SPEC + GRADCODEC_H5Z_MAX_SPEC_LENGTH / 4);
    std::size_t count = cd.size();
    unsigned flags = 0, config = 0;
    const H5Z_filter_t id =
        H5Pget_filter2(dcpl.get(), 0, &flags, &count, cd.data(), 0, nullptr, &config);
    if (id != GRADCODEC_H5Z_FILTER_ID) return std::nullopt;
    if (count > cd.size())
        fail(ErrorKind::bad_input, where + ": gradcodec filter with too many parameters");
    cd.resize(count);
    try {
        return h5z::unpack_filter_params(cd);
    } catch (const Error& e) {
        fail(ErrorKind::bad_input, where + ": " + e.what());
    }
}

// The chunk grid is walked by offset: H5Dget_num_chunks and H5Dget_chunk_info do not serve
// every chunk index of HDF5 1.10 (the single-chunk index among them).
std::vector<std::vector<std::uint8_t>> read_chunk_frames(hid_t dataset, const std::string& where) {
    Hid space =
        checked(H5Dget_space(dataset), ErrorKind::bad_input, where, "cannot read its dataspace");
    Hid dcpl = checked(H5Dget_create_plist(dataset), ErrorKind::bad_input, where,
                       "cannot read its creation list");
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank <= 0) return {};
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank)), chunk(dims.size()),
        offset(dims.size(), 0);
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    if (H5Pget_chunk(dcpl.get(), rank, chunk.data()) != rank)
        fail(ErrorKind::bad_input, where + ": not chunked");
    if (std::find(dims.begin(), dims.end(), hsize_t{0}) != dims.end()) return {};
    std::vector<std::vector<std::uint8_t>> frames;
    while (true) {
        hsize_t size = 0;
        check_status(H5Dget_chunk_storage_size(dataset, offset.data(), &size), ErrorKind::bad_input,
                     where, "cannot locate chunk " + std::to_string(frames.size()));
        std::vector<std::uint8_t> frame(size);
        std::uint32_t filters = 0;
        check_status(H5Dread_chunk(dataset, H5P_DEFAULT, offset.data(), &filters, frame.data()),
                     ErrorKind::bad_input, where,
                     "cannot read chunk " + std::to_string(frames.size()));
        if (filters != 0) {
            fail(ErrorKind::bad_input,
                 where + ": chunk " + std::to_string(frames.size()) + " was stored unfiltered");
        }
        frames.push_back(std::move(frame));
        int d = rank - 1;  // next chunk in C order
        for (; d >= 0; --d) {
            offset[d] += chunk[d];
            if (offset[d] < dims[d]) break;
            offset[d] = 0;
        }
        if (d < 0) return frames;
    }
}

namespace {

std::string& kept_filter_error() {
    static std::string message;
    return message;
}

herr_t find_filter_message(unsigned, const H5E_error2_t* entry, void*) {
    constexpr const char* kPrefix = "gradcodec filter: ";
    if (entry->desc && std::strncmp(entry->desc, kPrefix, std::strlen(kPrefix)) == 0) {
        kept_filter_error() = entry->desc + std::strlen(kPrefix);
    }
    return 0;
}

herr_t on_hdf5_failure(hid_t stack, void*) {
    H5Ewalk2(stack, H5E_WALK_DOWNWARD, find_filter_message, nullptr);
    return 0;
}

}  // namespace

void keep_filter_errors() {
    kept_filter_error().clear();
    H5Eset_auto2(H5E_DEFAULT, on_hdf5_failure, nullptr);
}

std::string last_filter_error() {
    return kept_filter_error();
}

}  // namespace gradcodec::cli
