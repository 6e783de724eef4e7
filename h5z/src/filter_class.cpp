// The three callbacks HDF5 calls: can_apply and set_local when a dataset is created with the
// filter, the filter itself per chunk. No C++ exception reaches HDF5: every failure is pushed
// on HDF5's error stack and reported by the callback's failure value, so a damaged chunk makes
// the read fail with a message instead of returning garbage.
#include "filter_class.hpp"

#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
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

std::size_t chunk_bytes(const FilterParams& params, DType dtype) {
    if (params.element_count == 0)
        fail(ErrorKind::bad_input, "the parameters hold no chunk size (set_local did not run)");
    return static_cast<std::size_t>(params.element_count) * dtype_size(dtype);
}

DType params_dtype(const FilterParams& params) {
    const auto dtype = dtype_from_code(params.dtype_code);
    if (!dtype)
        fail(ErrorKind::bad_input, "unknown dtype code " + std::to_string(params.dtype_code));
    return *dtype;
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

std::size_t decode_chunk(const FilterParams& params, std::size_t nbytes, std::size_t* buf_size,
                         void** buf) {
    const std::span<const std::uint8_t> frame(static_cast<const std::uint8_t*>(*buf), nbytes);
    const FrameInfo info = read_frame_info(frame);
    const DType dtype = params_dtype(params);
    if (info.dtype != dtype || info.element_count != params.element_count) {
        fail(ErrorKind::damaged_stream,
             "the chunk's frame holds " + std::to_string(info.element_count) + " " +
                 std::string(dtype_name(info.dtype)) + " values, the dataset's chunk " +
                 std::to_string(params.element_count) + " " + std::string(dtype_name(dtype)));
    }
    const std::size_t bytes = chunk_bytes(params, dtype);
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
        const FilterParams params = unpack_filter_params({cd_values, cd_nelmts});
        return (flags & H5Z_FLAG_REVERSE) ? decode_chunk(params, nbytes, buf_size, buf)
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
