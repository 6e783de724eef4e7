// One format for both backends: the CPU decodes GPU-written fft payloads, the GPU decodes
// CPU-written ones, and the two decoders agree on one payload to within float rounding.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "device_buffer.hpp"
#include "gradcodec/cuda.hpp"
#include "gradcodec/gradcodec.hpp"

using namespace gradcodec;

namespace {

std::vector<float> gradient_like(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, 1e-2f);
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = dist(rng) + 1e-2f * std::sin(static_cast<float>(i) * 0.01f);
    return v;
}

std::span<const std::byte> bytes_of(const std::vector<float>& v) {
    return std::as_bytes(std::span<const float>(v));
}

std::vector<float> cpu_decode(const EncodedTensor& e, const TensorMeta& meta) {
    std::vector<float> y(meta.element_count());
    decode_tensor(e.codec_id, meta, e.payload, std::as_writable_bytes(std::span<float>(y)));
    return y;
}

std::vector<float> gpu_decode(const EncodedTensor& e, const TensorMeta& meta) {
    DeviceBuffer<float> out(meta.element_count());
    cuda::decode_tensor_on_device(e.codec_id, meta, e.payload, out.get());
    return out.host();
}

double rel_l2(const std::vector<float>& x, const std::vector<float>& y) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        num += (static_cast<double>(x[i]) - y[i]) * (static_cast<double>(x[i]) - y[i]);
        den += static_cast<double>(x[i]) * x[i];
    }
    return den == 0 ? std::sqrt(num) : std::sqrt(num / den);
}

double max_abs(const std::vector<float>& v) {
    double m = 0;
    for (float f : v) m = std::max(m, static_cast<double>(std::fabs(f)));
    return m;
}

}  // namespace

TEST_CASE("GPU-written fft payloads decode on the CPU and CPU-written ones on the GPU",
          "[gpu][fft]") {
    const char* specs[] = {"fft", "fft:density=0.05,chunk=1024", "fft:values=f32,chunk=100",
                           "fft:density=0.3,bits=12,chunk=7", "fft:density=1,values=f32"};
    for (const std::size_t n : {1, 2, 255, 256, 257, 100000, 1 << 20}) {
        const std::vector<float> x = gradient_like(n, static_cast<unsigned>(n));
        const TensorMeta meta{"t", DType::f32, {n}};
        for (const char* text : specs) {
            INFO("n " << n << " spec " << text);
            const CodecSpec spec = parse_codec_spec(text);
            const EncodedTensor cpu = encode_tensor(spec, meta, bytes_of(x));
            DeviceBuffer<float> device_x(x);
            const EncodedTensor gpu = cuda::encode_tensor_on_device(spec, meta, device_x.get());
            REQUIRE(gpu.codec_id == cpu.codec_id);
            // Same header: flags, chunk (the default chunk included), density.
            REQUIRE(std::memcmp(gpu.payload.data(), cpu.payload.data(), 13) == 0);

            const std::vector<float> cpu_of_gpu = cpu_decode(gpu, meta);
            const std::vector<float> gpu_of_gpu = gpu_decode(gpu, meta);
            const std::vector<float> cpu_of_cpu = cpu_decode(cpu, meta);
            const std::vector<float> gpu_of_cpu = gpu_decode(cpu, meta);
            // One payload, two inverse FFTs of chunks up to 1024: the outputs differ by float
            // rounding of the transform only (~1e-7 per butterfly level, relative to the
            // chunk's scale), so 1e-4 of the tensor's largest magnitude is a loose bound.
            const double bound = 1e-4 * max_abs(x) + 1e-12;
            for (std::size_t i = 0; i < n; ++i) {
                REQUIRE(std::fabs(cpu_of_gpu[i] - gpu_of_gpu[i]) <= bound);
                REQUIRE(std::fabs(cpu_of_cpu[i] - gpu_of_cpu[i]) <= bound);
            }
            // Different encoders may keep a different bin at the cut; the error stays the same.
            const double e_cpu = rel_l2(x, cpu_of_cpu), e_gpu = rel_l2(x, cpu_of_gpu);
            CHECK(e_gpu <= e_cpu * 1.01 + 1e-6);
        }
    }
}

TEST_CASE("the GPU fft encoder refuses non-finite input with the CPU's error kind", "[gpu][fft]") {
    std::vector<float> x = gradient_like(5000, 1);
    x[1234] = std::nanf("");
    const TensorMeta meta{"t", DType::f32, {x.size()}};
    DeviceBuffer<float> device_x(x);
    try {
        cuda::encode_tensor_on_device(parse_codec_spec("fft"), meta, device_x.get());
        FAIL("no error");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::bad_input);
    }
}

TEST_CASE("the GPU path turns away specs it does not run with a usage error", "[gpu][fft]") {
    const std::vector<float> x(100, 1.0f);
    DeviceBuffer<float> device_x(x);
    for (const char* text : {"fft:select=sidco", "dct", "dgc:density=0.1", "sidco:density=0.01"}) {
        const TensorMeta meta{"t", DType::f32, {x.size()}};
        CHECK_FALSE(cuda::device_supports(parse_codec_spec(text), meta));
        try {
            cuda::encode_tensor_on_device(parse_codec_spec(text), meta, device_x.get());
            FAIL("no error");
        } catch (const Error& e) {
            CHECK(e.kind() == ErrorKind::usage);
        }
    }
}
