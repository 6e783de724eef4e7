// The sparse codec's selection is exact, so on the same input the GPU encoder writes the very
// bytes the CPU encoder writes.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "device_buffer.hpp"
#include "gradcodec/cuda.hpp"
#include "gradcodec/gradcodec.hpp"

using namespace gradcodec;

TEST_CASE("GPU topk and threshold payloads equal the CPU's byte for byte", "[gpu][sparse]") {
    const char* specs[] = {"topk",
                           "topk:density=0.1,values=f32",
                           "topk:count=1000,bits=8",
                           "topk:density=1",
                           "topk:count=1",
                           "threshold:value=0.02",
                           "threshold:value=0,values=bf16",
                           "threshold:value=1e9"};
    std::mt19937 rng(9);
    for (const std::size_t n : {1, 7, 4096, 100003, 1 << 20}) {
        std::normal_distribution<float> dist(0.0f, 1e-2f);
        std::vector<float> x(n);
        // Every third value on a coarse grid so that magnitudes tie; a few exact zeros.
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = dist(rng);
            if (i % 3 == 0) x[i] = std::round(x[i] * 100.0f) / 100.0f;
        }
        const TensorMeta meta{"t", DType::f32, {n}};
        DeviceBuffer<float> device_x(x);
        for (const char* text : specs) {
            INFO("n " << n << " spec " << text);
            const CodecSpec spec = parse_codec_spec(text);
            const EncodedTensor cpu =
                encode_tensor(spec, meta, std::as_bytes(std::span<const float>(x)));
            const EncodedTensor gpu = cuda::encode_tensor_on_device(spec, meta, device_x.get());
            CHECK(gpu.codec_id == cpu.codec_id);
            CHECK(gpu.payload == cpu.payload);
        }
    }
}

TEST_CASE("the GPU sparse encoder refuses non-finite input unless allowed", "[gpu][sparse]") {
    std::vector<float> x(1000, 0.5f);
    x[77] = INFINITY;
    const TensorMeta meta{"t", DType::f32, {x.size()}};
    DeviceBuffer<float> device_x(x);
    CHECK_THROWS_AS(cuda::encode_tensor_on_device(parse_codec_spec("topk"), meta, device_x.get()),
                    Error);
    const EncodedTensor cpu = encode_tensor(parse_codec_spec("topk:values=f32"), meta,
                                            std::as_bytes(std::span<const float>(x)), {true});
    const EncodedTensor gpu = cuda::encode_tensor_on_device(parse_codec_spec("topk:values=f32"),
                                                            meta, device_x.get(), {true});
    CHECK(gpu.payload == cpu.payload);
}
