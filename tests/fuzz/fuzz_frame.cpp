// libFuzzer target over frames: the C API's frame decoder and gradcodec's HDF5 filter, which
// stores each chunk of a dataset as one frame.
//   - A frame ("\x89GCF..."): any bytes through gc_frame_info and gc_decode_frame must give a
//     status, never a crash, a leak or an overrun. A frame that decodes is re-encoded
//     losslessly and decoded again, so the values survive a round trip. A flat frame of at most
//     2^21 elements is also a stored chunk of a lossless-filtered dataset of its dtype and
//     count: the filter decodes it (H5Z_FLAG_REVERSE) exactly when the library does, to the
//     same bytes.
//   - A filter input ("\x89H5Z...", h5z_input.hpp): a chunk, fuzzed cd_values and the dataset
//     they belong to, open in an in-memory file. The filter callback runs on the chunk the way
//     HDF5's pipeline calls it (an H5allocate_memory buffer it may replace), and with
//     kH5zThroughHdf5 HDF5's own pipeline runs it too. A chunk the filter encodes must decode
//     to the chunk's size (and, lossless, to its bytes); a chunk it decodes must come back the
//     size HDF5 copies out of it.
#include <gradcodec.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "fuzz_limits.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/frame.hpp"
#include "gradcodec_h5z_params.hpp"
#include "h5z_dataset.hpp"

namespace {

constexpr std::size_t kMaxElements = std::size_t{1} << 22;  // the fuzzer's memory, not a format cap

std::size_t dtype_bytes(gc_dtype dtype) {
    return dtype == GC_F32 ? 4 : dtype == GC_F64 ? 8 : 2;
}

bool same_bytes(const void* a, const void* b, std::size_t size) {
    return size == 0 || std::memcmp(a, b, size) == 0;
}

// The library's own decode of a frame, or nullopt where it refuses it.
std::optional<std::vector<std::uint8_t>> library_decode(std::span<const std::uint8_t> frame) {
    try {
        const gradcodec::FrameInfo info = gradcodec::read_frame_info(frame);
        std::vector<std::uint8_t> out(info.element_count * gradcodec::dtype_size(info.dtype));
        gradcodec::decode_frame_into(frame, std::as_writable_bytes(std::span(out)));
        return out;
    } catch (const gradcodec::Error&) {
        return std::nullopt;
    }
}

// Whether the parameters name the lossless codec, whose chunks come back bit for bit.
bool names_lossless(const std::vector<unsigned>& cd) {
    return cd.size() > GRADCODEC_H5Z_CD_CODEC_ID && cd[GRADCODEC_H5Z_CD_CODEC_ID] == 1;
}

// The chunk's values, or the stored frame, through the filter callback with the parameters
// HDF5 keeps for the dataset; `checked`: set_local wrote them.
void filter_callback(const gcfuzz::H5zInput& input, const gcfuzz::H5zDataset& dataset,
                     bool checked) {
    const std::vector<unsigned>& cd = dataset.cd();
    gcfuzz::FilterRun run;
    gcfuzz::load(run, input.chunk);
    if (input.mode & gcfuzz::kH5zReverse) {
        gcfuzz::run_filter(run, H5Z_FLAG_REVERSE, cd, input.chunk.size());
        if (run.result == 0) return;
        // HDF5 copies a whole chunk out of what the filter returns.
        if (run.result != dataset.chunk_bytes() || run.result > run.buf_size) __builtin_trap();
        const auto expected = library_decode(input.chunk);
        if (!expected || expected->size() != run.result ||
            !same_bytes(expected->data(), run.buf, run.result))
            __builtin_trap();
        return;
    }
    gcfuzz::run_filter(run, 0, cd, input.chunk.size());
    if (run.result == 0) return;
    if (run.result > run.buf_size) __builtin_trap();
    gcfuzz::run_filter(run, H5Z_FLAG_REVERSE, cd, run.result);
    // set_local wrote these parameters for this dataset: what the filter encoded, it decodes.
    if (!checked) return;
    if (run.result != input.chunk.size() || run.result > run.buf_size) __builtin_trap();
    if (names_lossless(cd) && !same_bytes(run.buf, input.chunk.data(), input.chunk.size()))
        __builtin_trap();
}

// The same chunk through HDF5's pipeline: H5Dwrite + H5Dread of the values, or the stored
// frame written with H5Dwrite_chunk and read with H5Dread.
void filter_through_hdf5(const gcfuzz::H5zInput& input, const gcfuzz::H5zDataset& dataset,
                         bool checked) {
    const std::uint64_t bytes = dataset.chunk_bytes();
    std::vector<std::uint8_t> read(bytes);
    if (input.mode & gcfuzz::kH5zReverse) {
        const std::vector<hsize_t> origin(input.chunk_dims.size(), 0);
        if (H5Dwrite_chunk(dataset.id(), H5P_DEFAULT, 0, origin.data(), input.chunk.size(),
                           input.chunk.data()) < 0)
            return;
        if (H5Dread(dataset.id(), dataset.type(), H5S_ALL, H5S_ALL, H5P_DEFAULT, read.data()) < 0)
            return;
        // What HDF5 read is what the filter decoded, which is the library's decode.
        const auto expected = library_decode(input.chunk);
        if (!expected || expected->size() != bytes ||
            !same_bytes(expected->data(), read.data(), bytes))
            __builtin_trap();
        return;
    }
    if (input.chunk.size() != bytes) return;
    if (H5Dwrite(dataset.id(), dataset.type(), H5S_ALL, H5S_ALL, H5P_DEFAULT, input.chunk.data()) <
        0)
        return;
    const bool ok =
        H5Dread(dataset.id(), dataset.type(), H5S_ALL, H5S_ALL, H5P_DEFAULT, read.data()) >= 0;
    if (!checked) return;
    if (!ok ||
        (names_lossless(dataset.cd()) && !same_bytes(read.data(), input.chunk.data(), bytes)))
        __builtin_trap();
}

void fuzz_filter(const gcfuzz::H5zInput& input) {
    std::uint64_t elements = 1;
    for (const std::uint64_t d : input.chunk_dims) elements *= d;
    if (elements == 0 || elements > gcfuzz::kMaxElements || input.chunk.empty()) return;
    const gcfuzz::H5zDataset dataset(input);
    if (dataset.ok()) {
        // Parameters set_local wrote are checked; verbatim ones need only fail cleanly.
        const bool checked = (input.mode & gcfuzz::kH5zVerbatim) == 0;
        filter_callback(input, dataset, checked);
        if (input.mode & gcfuzz::kH5zThroughHdf5) filter_through_hdf5(input, dataset, checked);
    }
    H5Eclear2(H5E_DEFAULT);
}

// The lossless-filtered dataset of one chunk of `count` values of chunk_types()[type]. The
// datasets stay open in a file of their own, up to 64 of them: most inputs are frames of the
// seeds' few sizes, and creating a dataset costs more than the rest of an input.
const gcfuzz::H5zDataset& lossless_dataset(std::uint8_t type, std::uint64_t count) {
    static const hid_t file = gcfuzz::memory_file("h5z-frames.h5");
    static std::map<std::pair<std::uint8_t, std::uint64_t>, std::unique_ptr<gcfuzz::H5zDataset>>
        open;
    auto& dataset = open[{type, count}];
    if (!dataset) {
        if (open.size() > 64) {
            open.clear();
            return lossless_dataset(type, count);
        }
        gcfuzz::H5zInput input;
        input.type = type;
        input.chunk_dims = {count};
        input.cd = gradcodec::h5z::pack_filter_params({1, 0, 0, 0, 0, "lossless"});
        dataset = std::make_unique<gcfuzz::H5zDataset>(input, file);
        if (!dataset->ok()) __builtin_trap();  // any dtype of chunk_types() takes lossless
    }
    return *dataset;
}

// A frame as the stored chunk of a lossless-filtered dataset of its dtype and element count.
void frame_as_chunk(std::span<const std::uint8_t> frame) {
    gradcodec::FrameInfo info;
    try {
        info = gradcodec::read_frame_info(frame);
    } catch (const gradcodec::Error&) {
        return;
    }
    const auto type = gcfuzz::chunk_type_index(info.dtype);
    if (!type || info.shape.size() != 1 || info.element_count == 0 ||
        info.element_count > gcfuzz::kMaxElements)
        return;
    const gcfuzz::H5zDataset& dataset = lossless_dataset(*type, info.element_count);
    gcfuzz::FilterRun run;
    gcfuzz::load(run, frame);
    gcfuzz::run_filter(run, H5Z_FLAG_REVERSE, dataset.cd(), frame.size());
    // The filter decodes a flat frame of the dataset's dtype and count exactly when the library
    // does, to the same bytes.
    const auto expected = library_decode(frame);
    if (expected.has_value() != (run.result != 0)) __builtin_trap();
    if (expected && (run.result != expected->size() || run.result > run.buf_size ||
                     !same_bytes(expected->data(), run.buf, run.result)))
        __builtin_trap();
    H5Eclear2(H5E_DEFAULT);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // refusals are expected, not printed
    if (gradcodec_h5z_register() < 0) std::abort();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (const auto input = gcfuzz::parse_h5z_input({data, size})) {
        fuzz_filter(*input);
        return 0;
    }
    frame_as_chunk({data, size});

    gc_dtype dtype = GC_F32;
    std::size_t n = 0;
    if (gc_frame_info(data, size, &dtype, &n) != GC_OK || n > kMaxElements) return 0;
    std::vector<std::uint8_t> values(n * dtype_bytes(dtype));
    if (gc_decode_frame(data, size, values.data(), values.size()) != GC_OK) return 0;

    gc_codec* lossless = nullptr;
    gc_options options{};
    options.allow_nonfinite = 1;
    if (gc_codec_open_with("lossless", &options, &lossless) != GC_OK) __builtin_trap();
    std::vector<std::uint8_t> frame(gc_frame_bound(lossless, dtype, n));
    std::size_t written = 0;
    if (gc_encode_frame(lossless, dtype, values.data(), n, frame.data(), frame.size(), &written) !=
        GC_OK) {
        __builtin_trap();
    }
    std::vector<std::uint8_t> again(values.size());
    if (gc_decode_frame(frame.data(), written, again.data(), again.size()) != GC_OK ||
        std::memcmp(values.data(), again.data(), values.size()) != 0) {
        __builtin_trap();
    }
    gc_codec_close(lossless);
    return 0;
}
