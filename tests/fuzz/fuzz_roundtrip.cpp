// libFuzzer target over the encoders: arbitrary bytes become a tensor, every stream the
// encoder writes must decode. Input: u8 codec spec (an index into the list of every codec and
// value coder), u8 dtype (f32, f16, bf16, f64 by its value mod 4), u8 flags (bit 0:
// allow_nonfinite), then the tensor's little-endian elements. An encoder may refuse its input
// with a clear error; writing a payload its own decoder refuses is a finding (abort).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "encode_roundtrip.hpp"
#include "fuzz_limits.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gradcodec;
    if (size < 3) return 0;
    const auto& specs = testing::every_codec_and_value_coder();
    const std::string& spec = specs[data[0] % specs.size()];
    constexpr DType kDtypes[] = {DType::f32, DType::f16, DType::bf16, DType::f64};
    const DType dtype = kDtypes[data[1] % 4];
    const EncodeOptions options{(data[2] & 1) != 0};
    const std::size_t n =
        std::min<std::size_t>((size - 3) / dtype_size(dtype), gcfuzz::kMaxElements);
    const TensorMeta meta{"fuzz", dtype, {n}};
    const auto bytes = std::as_bytes(std::span(data + 3, n * dtype_size(dtype)));
    const auto r = testing::encode_then_decode(parse_codec_spec(spec), meta, bytes, options);
    if (!r.broken_promise.empty()) {
        std::fprintf(stderr, "%s on %s (%zu elements): %s\n", spec.c_str(),
                     std::string(dtype_name(dtype)).c_str(), n, r.broken_promise.c_str());
        std::abort();
    }
    return 0;
}
