// The three callbacks HDF5 calls: can_apply and set_local when a dataset is created with the
// filter, the filter itself per chunk. No C++ exception reaches HDF5: every failure is pushed
// on HDF5's error stack and reported by the callback's failure value, so a damaged chunk makes
// the read fail with a message instead of returning garbage.
#include "filter_class.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/frame.hpp"
#include "gradcodec_h5z.h"
#include "gradcodec_h5z_params.hpp"
#include "hdf5_dtype.hpp"

static_assert(
    GRADCODEC_H5Z_FILTER_ID >= 256 && GRADCODEC_H5Z_FILTER_ID <= 511,
    "until HDF5 registers gradcodec's ID, it must stay in the range for unregistered filters");

namespace gradcodec::h5z {
namespace {

constexpr const char* kChunkName = "HDF5 chunk";
constexpr std::size_t kMaxCdValues = GRADCODEC_H5Z_CD_SPEC + GRADCODEC_H5Z_MAX_SPEC_LENGTH / 4;

void push_error(const char* where, const std::string& message) {
    H5Epush2(H5E_DEFAULT, __FILE__, where, __LINE__, H5E_ERR_CLS, H5E_PLINE, H5E_CANTFILTER,
             "gradcodec filter: %s", message.c_str());
}

// Runs `body`, turning any exception into an error on HDF5's stack and `failed`.
template <typename Result, typename Body>
Result guarded(const char* where, Result failed, Body&& body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        push_error(where, "out of memory");
    } catch (const std::exception& e) {
        push_error(where, e.what());
    } catch (...) {
        push_error(where, "unknown failure");
    }
    return failed;
}

// The parameters this dataset creation property list holds under gradcodec's ID. Looking them
// up by the fixed ID is what refuses a copy of the filter registered under another one.
FilterParams params_in(hid_t dcpl, unsigned& flags) {
    std::vector<unsigned> cd(kMaxCdValues);
    std::size_t count = cd.size();
    unsigned config = 0;
    if (H5Pget_filter_by_id2(dcpl, GRADCODEC_H5Z_FILTER_ID, &flags, &count, cd.data(), 0, nullptr,
                             &config) < 0) {
        fail(ErrorKind::usage, "the dataset does not name filter " +
                                   std::to_string(GRADCODEC_H5Z_FILTER_ID) +
                                   "; gradcodec's filter runs under that ID only");
    }
    if (count > cd.size())
        fail(ErrorKind::usage, "too many filter parameters (" + std::to_string(count) + ")");
    cd.resize(count);
    if (count == 0) return FilterParams{};  // no parameters at all: lossless
    return unpack_filter_params(cd);
}

Codec compile(const FilterParams& params) {
    return Codec::compile(params.spec.empty() ? std::string("lossless") : params.spec,
                          EncodeOptions{(params.flags & GRADCODEC_H5Z_FLAG_ALLOW_NONFINITE) != 0});
}

DType dataset_dtype(hid_t type) {
    const auto dtype = dtype_of_dataset_type(type);
    if (!dtype) {
        fail(ErrorKind::usage,
             "the dataset's type is not a little-endian float (f16, bf16, f32, f64) or integer");
    }
    return *dtype;
}

void check_applies(const Codec& codec, DType dtype) {
    if (!codec_runs_per_chunk(codec.id())) {
        fail(ErrorKind::usage, "codec " + std::string(codec.name()) +
                                   " transforms whole tensors and does not run per chunk; store it "
                                   "in a gradcodec stream");
    }
    if (!is_float(dtype) && codec.id() != 1) {
        fail(ErrorKind::usage, "codec " + std::string(codec.name()) +
                                   " takes float datasets only; " + std::string(dtype_name(dtype)) +
                                   " datasets take lossless");
    }
}

htri_t can_apply(hid_t dcpl, hid_t type, hid_t) {
    return guarded<htri_t>("gradcodec_can_apply", 0, [&] {
        unsigned flags = 0;
        check_applies(compile(params_in(dcpl, flags)), dataset_dtype(type));
        return htri_t{1};
    });
}

std::uint64_t chunk_element_count(hid_t dcpl) {
    hsize_t dims[H5S_MAX_RANK] = {};
    const int rank = H5Pget_chunk(dcpl, H5S_MAX_RANK, dims);
    if (rank <= 0) fail(ErrorKind::usage, "the dataset is not chunked");
    std::uint64_t count = 1;
    for (int d = 0; d < rank; ++d) count *= dims[d];  // HDF5 caps a chunk at 4 GiB
    return count;
}

herr_t set_local(hid_t dcpl, hid_t type, hid_t) {
    return guarded<herr_t>("gradcodec_set_local", -1, [&] {
        unsigned flags = 0;
        FilterParams params = params_in(dcpl, flags);
        const Codec codec = compile(params);
        const DType dtype = dataset_dtype(type);
        check_applies(codec, dtype);
        if (params.codec_id != 0 && params.codec_id != codec.id()) {
            fail(ErrorKind::usage, "codec id " + std::to_string(params.codec_id) +
                                       " disagrees with the spec " + codec.spec() + " (id " +
                                       std::to_string(codec.id()) + ")");
        }
        params.codec_id = codec.id();
        params.dtype_code = static_cast<std::uint8_t>(dtype);
        params.element_count = chunk_element_count(dcpl);
        params.spec = codec.spec();
        const std::vector<unsigned> cd = pack_filter_params(params);
        if (H5Pmodify_filter(dcpl, GRADCODEC_H5Z_FILTER_ID, flags, cd.size(), cd.data()) < 0) {
            fail(ErrorKind::usage, "cannot store the filter parameters");
        }
        return herr_t{0};
    });
}

// A codec is compiled once per thread for a run of chunks with the same parameters.
const Codec& cached_codec(const FilterParams& params) {
    thread_local std::optional<Codec> codec;
    thread_local std::string spec;
    thread_local std::uint32_t flags = 0;
    if (!codec || spec != params.spec || flags != params.flags) {
        codec = compile(params);
        spec = params.spec;
        flags = params.flags;
    }
    return *codec;
}

struct HdfFree {
    void operator()(void* p) const { H5free_memory(p); }
};
using HdfBuffer = std::unique_ptr<std::uint8_t, HdfFree>;

HdfBuffer allocate(std::uint64_t bytes) {
    HdfBuffer buffer(
        static_cast<std::uint8_t*>(H5allocate_memory(static_cast<std::size_t>(bytes), false)));
    if (!buffer && bytes != 0) throw std::bad_alloc();
    return buffer;
}

// HDF5 refuses to create a dataset whose chunk holds 4 GiB or more.
constexpr std::uint64_t kMaxChunkBytes = 0xFFFFFFFFu;

std::string values_text(std::uint64_t count, DType dtype) {
    return std::to_string(count) + " " + std::string(dtype_name(dtype)) + " values";
}

// The chunk's size in bytes as the parameters give it, refused when HDF5 could not have
// created such a chunk. Nothing is allocated from a count before it passes here.
std::size_t chunk_bytes(const FilterParams& params, DType dtype) {
    if (params.element_count == 0)
        fail(ErrorKind::bad_input, "the parameters hold no chunk size (set_local did not run)");
    if (params.element_count > kMaxChunkBytes / dtype_size(dtype)) {
        fail(ErrorKind::bad_input, "the parameters claim " +
                                       values_text(params.element_count, dtype) +
                                       " per chunk, more than HDF5's 4 GiB chunk limit");
    }
    return static_cast<std::size_t>(params.element_count * dtype_size(dtype));
}

DType params_dtype(const FilterParams& params) {
    const auto dtype = dtype_from_code(params.dtype_code);
    if (!dtype)
        fail(ErrorKind::bad_input, "unknown dtype code " + std::to_string(params.dtype_code));
    return *dtype;
}

// What the filter needs of an open dataset: the parameters of each gradcodec filter in its
// pipeline (none for most datasets) and its chunk's element count and dtype.
struct OpenDataset {
    std::vector<std::vector<unsigned>> params;
    std::uint64_t element_count = 0;
    std::optional<DType> dtype;
};

// Calls only functions that cannot fail on a dataset of any layout, type or pipeline, so that
// nothing lands on HDF5's error stack.
OpenDataset describe(hid_t dataset) {
    OpenDataset out;
    const hid_t dcpl = H5Dget_create_plist(dataset);
    if (dcpl < 0) return out;
    const int filters = H5Pget_layout(dcpl) == H5D_CHUNKED ? H5Pget_nfilters(dcpl) : 0;
    for (int i = 0; i < filters; ++i) {
        std::vector<unsigned> values(kMaxCdValues);
        std::size_t count = values.size();
        unsigned flags = 0, config = 0;
        if (H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &count, values.data(), 0,
                           nullptr, &config) == GRADCODEC_H5Z_FILTER_ID) {
            values.resize(std::min(count, values.size()));
            out.params.push_back(std::move(values));
        }
    }
    if (!out.params.empty()) {
        hsize_t dims[H5S_MAX_RANK] = {};
        const int rank = H5Pget_chunk(dcpl, H5S_MAX_RANK, dims);
        out.element_count = rank > 0 ? 1 : 0;
        for (int d = 0; d < rank; ++d) {
            if (__builtin_mul_overflow(out.element_count, std::uint64_t{dims[d]},
                                       &out.element_count))
                out.element_count = UINT64_MAX;
        }
        const hid_t type = H5Dget_type(dataset);
        if (type >= 0) {
            out.dtype = dtype_of_dataset_type(type);
            H5Tclose(type);
        }
    }
    H5Pclose(dcpl);
    return out;
}

// On a read HDF5 gives the filter the stored bytes and their size, never the size of the
// chunk it will copy out of the buffer the filter returns: that size comes from the dataset's
// chunk dimensions and type. The parameters carry a copy of it, which an edited file can
// falsify together with the frame, so the copy is checked against the datasets HDF5 has open:
// each one whose pipeline carries exactly these parameters must have chunks of that count and
// dtype, and at least one must. A dataset's creation properties never change while it is
// open and HDF5 does not reuse identifiers, so each open dataset is described once per thread.
void confirm_chunk(std::span<const unsigned> cd, const FilterParams& params, DType dtype) {
    thread_local std::unordered_map<hid_t, OpenDataset> described;
    const ssize_t open = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_DATASET);
    std::vector<hid_t> ids(open > 0 ? static_cast<std::size_t>(open) : 0);
    const ssize_t listed =
        ids.empty() ? 0 : H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_DATASET, ids.size(), ids.data());
    ids.resize(listed > 0 ? std::min(static_cast<std::size_t>(listed), ids.size()) : 0);
    std::unordered_map<hid_t, OpenDataset> now;  // closed datasets drop out
    now.reserve(ids.size());
    for (const hid_t id : ids) {
        const auto known = described.find(id);
        now.emplace(id, known != described.end() ? std::move(known->second) : describe(id));
    }
    described.swap(now);
    bool found = false;
    for (const auto& [id, dataset] : described) {
        const bool carries = std::any_of(
            dataset.params.begin(), dataset.params.end(), [&](const std::vector<unsigned>& p) {
                return std::equal(p.begin(), p.end(), cd.begin(), cd.end());
            });
        if (!carries) continue;
        found = true;
        if (dataset.element_count != params.element_count || dataset.dtype != dtype) {
            const std::string held =
                dataset.dtype ? values_text(dataset.element_count, *dataset.dtype)
                              : std::to_string(dataset.element_count) + " values of another type";
            fail(ErrorKind::damaged_stream, "the parameters claim " +
                                                values_text(params.element_count, dtype) +
                                                " per chunk, the dataset's chunks hold " + held);
        }
    }
    if (!found) {
        fail(ErrorKind::usage,
             "no open dataset carries these filter parameters, so the size of the chunk HDF5 "
             "reads cannot be confirmed (a virtual dataset's sources are opened without one)");
    }
}

std::size_t encode_chunk(const FilterParams& params, std::size_t nbytes, std::size_t* buf_size,
                         void** buf) {
    const DType dtype = params_dtype(params);
    const std::size_t expected = chunk_bytes(params, dtype);
    if (nbytes != expected) {
        fail(ErrorKind::bad_input, "the chunk holds " + std::to_string(nbytes) +
                                       " bytes, the parameters say " + std::to_string(expected));
    }
    const Codec& codec = cached_codec(params);
    const TensorMeta meta{kChunkName, dtype, {params.element_count}};
    const std::uint64_t bound = max_frame_size(codec, meta);
    HdfBuffer frame = allocate(bound);
    const auto* values = static_cast<const std::byte*>(*buf);
    const std::size_t size = encode_frame_into(codec, meta, {values, nbytes}, {frame.get(), bound});
    H5free_memory(*buf);
    *buf = frame.release();
    *buf_size = bound;
    return size;
}

// HDF5 passes the stored frame (`nbytes` of the `*buf_size` allocated at `*buf`) and copies
// the chunk's size in bytes out of what the filter returns, so the filter returns exactly
// that: the parameters, the chunk of the dataset being read and the frame's header must agree
// on dtype and element count before anything is allocated.
std::size_t decode_chunk(std::span<const unsigned> cd, const FilterParams& params,
                         std::size_t nbytes, std::size_t* buf_size, void** buf) {
    const DType dtype = params_dtype(params);
    const std::size_t bytes = chunk_bytes(params, dtype);
    confirm_chunk(cd, params, dtype);
    if (nbytes > *buf_size) {
        fail(ErrorKind::usage, "HDF5 passed " + std::to_string(nbytes) + " stored bytes in a " +
                                   std::to_string(*buf_size) + "-byte buffer");
    }
    const std::span<const std::uint8_t> frame(static_cast<const std::uint8_t*>(*buf), nbytes);
    const FrameInfo info = read_frame_info(frame);
    if (info.dtype != dtype || info.element_count != params.element_count ||
        info.shape.size() != 1) {
        fail(ErrorKind::damaged_stream,
             "the chunk's frame holds " + values_text(info.element_count, info.dtype) +
                 " of rank " + std::to_string(info.shape.size()) + ", the dataset's chunk " +
                 values_text(params.element_count, dtype) + " of rank 1");
    }
    HdfBuffer values = allocate(bytes);
    decode_frame_into(frame, {reinterpret_cast<std::byte*>(values.get()), bytes});
    H5free_memory(*buf);
    *buf = values.release();
    *buf_size = bytes;
    return bytes;
}

std::size_t filter(unsigned int flags, std::size_t cd_nelmts, const unsigned int cd_values[],
                   std::size_t nbytes, std::size_t* buf_size, void** buf) {
    return guarded<std::size_t>("gradcodec_filter", 0, [&] {
        const std::span<const unsigned> cd(cd_values, cd_nelmts);
        const FilterParams params = unpack_filter_params(cd);
        return (flags & H5Z_FLAG_REVERSE) ? decode_chunk(cd, params, nbytes, buf_size, buf)
                                          : encode_chunk(params, nbytes, buf_size, buf);
    });
}

const H5Z_class2_t kFilterClass = {
    H5Z_CLASS_T_VERS,
    GRADCODEC_H5Z_FILTER_ID,
    1,
    1,
    GRADCODEC_H5Z_FILTER_NAME,
    can_apply,
    set_local,
    filter,
};

}  // namespace

const H5Z_class2_t* filter_class() {
    return &kFilterClass;
}

}  // namespace gradcodec::h5z

extern "C" int gradcodec_h5z_register(void) {
    return H5Zregister(gradcodec::h5z::filter_class()) < 0 ? -1 : 0;
}
