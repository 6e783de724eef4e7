// libFuzzer target over the C API's frame decoder: any bytes through gc_frame_info and
// gc_decode_frame must give a status, never a crash, a leak or an overrun. A frame that
// decodes is re-encoded losslessly and decoded again, so the values survive a round trip.
#include <gradcodec.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

constexpr std::size_t kMaxElements = std::size_t{1} << 22;  // the fuzzer's memory, not a format cap

std::size_t dtype_bytes(gc_dtype dtype) {
    return dtype == GC_F32 ? 4 : dtype == GC_F64 ? 8 : 2;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
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
