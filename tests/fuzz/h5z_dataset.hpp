#pragma once
// The dataset an H5zInput's chunk belongs to, open in an in-memory file, with gradcodec's
// filter class (gradcodec_h5z_register must have run) and the cd_values HDF5 keeps for it:
// the filter confirms a chunk it decodes against the open datasets that carry its parameters.
#include <hdf5.h>

#include <cstdint>
#include <vector>

#include "filter_class.hpp"
#include "gradcodec_h5z.h"
#include "h5z_input.hpp"

namespace gcfuzz {

// An in-memory file (never written to disk) for the datasets.
inline hid_t memory_file(const char* name) {
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(fapl, 1 << 16, 0);
    const hid_t file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    return file;
}

// The file of datasets that live for one input: each is anonymous, so it is deleted as it is
// closed (a file per dataset would cost far more than the filter). It is replaced every 4096
// datasets, which bounds what it keeps, so none may be open across calls.
inline hid_t scratch_file() {
    static hid_t file = -1;
    static unsigned uses = 0;
    if (file >= 0 && ++uses % 4096 == 0) {
        H5Fclose(file);
        file = -1;
    }
    if (file < 0) file = memory_file("h5z-scratch.h5");
    return file;
}

class H5zDataset {
  public:
    // An anonymous dataset in `file`; nothing (ok() is false) where HDF5 or the filter
    // refuses it.
    explicit H5zDataset(const H5zInput& input, hid_t file = scratch_file()) {
        const ChunkType& chunk_type = chunk_types()[input.type % chunk_types().size()];
        type_ = chunk_type.make();
        std::vector<hsize_t> dims(input.chunk_dims.begin(), input.chunk_dims.end());
        const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
        const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        // No chunk cache: every H5Dwrite and H5Dread runs the chunk through the filter.
        const hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
        H5Pset_chunk_cache(dapl, 0, 0, 1.0);
        if (file >= 0 && space >= 0 &&
            H5Pset_chunk(dcpl, static_cast<int>(dims.size()), dims.data()) >= 0 &&
            H5Pset_filter(dcpl, GRADCODEC_H5Z_FILTER_ID, H5Z_FLAG_MANDATORY, input.cd.size(),
                          input.cd.data()) >= 0) {
            if (input.mode & kH5zVerbatim) {
                // A stand-in without can_apply and set_local holds the ID while the dataset
                // is created, then gradcodec's class replaces it.
                H5Zregister(&stand_in_class);
                dataset_ = H5Dcreate_anon(file, type_, space, dcpl, dapl);
                H5Zregister(gradcodec::h5z::filter_class());
            } else {
                dataset_ = H5Dcreate_anon(file, type_, space, dcpl, dapl);
            }
        }
        H5Pclose(dapl);
        H5Pclose(dcpl);
        if (space >= 0) H5Sclose(space);
        if (dataset_ >= 0) {
            const hid_t created = H5Dget_create_plist(dataset_);
            std::vector<unsigned> cd(256);  // HDF5 refuses a larger count as uninitialised
            std::size_t count = cd.size();
            unsigned flags = 0;
            if (H5Pget_filter_by_id2(created, GRADCODEC_H5Z_FILTER_ID, &flags, &count, cd.data(), 0,
                                     nullptr, nullptr) >= 0 &&
                count <= cd.size()) {
                cd.resize(count);
                cd_ = std::move(cd);
                ok_ = true;
            }
            H5Pclose(created);
        }
        chunk_bytes_ = H5Tget_size(type_);
        for (const std::uint64_t d : input.chunk_dims) chunk_bytes_ *= d;
    }
    H5zDataset(const H5zDataset&) = delete;
    H5zDataset& operator=(const H5zDataset&) = delete;
    ~H5zDataset() {
        if (dataset_ >= 0) H5Dclose(dataset_);
        H5Tclose(type_);
    }

    bool ok() const { return ok_; }
    hid_t id() const { return dataset_; }
    hid_t type() const { return type_; }
    // The parameters HDF5 passes the filter for this dataset's chunks.
    const std::vector<unsigned>& cd() const { return cd_; }
    // What one chunk of the dataset holds, in bytes.
    std::uint64_t chunk_bytes() const { return chunk_bytes_; }

  private:
    static std::size_t refuse(unsigned, std::size_t, const unsigned[], std::size_t, std::size_t*,
                              void**) {
        return 0;
    }
    static constexpr H5Z_class2_t stand_in_class = {
        H5Z_CLASS_T_VERS, GRADCODEC_H5Z_FILTER_ID, 1, 1, "stand-in", nullptr, nullptr, refuse};

    hid_t type_ = -1;
    hid_t dataset_ = -1;
    bool ok_ = false;
    std::vector<unsigned> cd_;
    std::uint64_t chunk_bytes_ = 0;
};

// Runs gradcodec's filter callback the way HDF5's pipeline does: `bytes` copied into an
// H5allocate_memory buffer the filter may replace; the caller owns what comes back.
struct FilterRun {
    std::size_t result = 0;  // 0: the filter failed, the buffer is the one it was given
    std::size_t buf_size = 0;
    void* buf = nullptr;
    FilterRun() = default;
    FilterRun(const FilterRun&) = delete;
    FilterRun& operator=(const FilterRun&) = delete;
    ~FilterRun() { H5free_memory(buf); }
};

inline void run_filter(FilterRun& run, unsigned flags, const std::vector<unsigned>& cd,
                       std::size_t nbytes) {
    run.result = gradcodec::h5z::filter_class()->filter(flags, cd.size(), cd.data(), nbytes,
                                                        &run.buf_size, &run.buf);
}

inline void load(FilterRun& run, std::span<const std::uint8_t> bytes) {
    H5free_memory(run.buf);
    run.buf_size = bytes.size();
    run.buf = H5allocate_memory(bytes.empty() ? 1 : bytes.size(), false);
    if (!bytes.empty()) std::memcpy(run.buf, bytes.data(), bytes.size());
}

}  // namespace gcfuzz
