// Round-trips a tensor through a frame with nothing but the installed headers and library.
#include <gradcodec/gradcodec.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
    using namespace gradcodec;
    std::vector<float> grad(10240);
    for (std::size_t i = 0; i < grad.size(); ++i)
        grad[i] = static_cast<float>(std::sin(0.1 * i)) * 1e-3f;
    const TensorMeta meta{"fc.weight", DType::f32, {10, 1024}};
    const Codec codec = Codec::compile("topk:density=0.01");
    std::vector<float> residual(grad.size());
    const auto frame = encode_frame(codec, meta, std::as_bytes(std::span(grad)),
                                    std::as_writable_bytes(std::span(residual)));
    std::vector<float> back(grad.size());
    decode_frame_into(frame, std::as_writable_bytes(std::span(back)));
    for (std::size_t i = 0; i < grad.size(); ++i) {
        if (back[i] + residual[i] != grad[i]) {
            std::fprintf(stderr, "element %zu: %g + %g != %g\n", i, back[i], residual[i], grad[i]);
            return 1;
        }
    }
    try {
        Codec::compile("topk:nonsense=1");
        return 1;
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::usage) return 1;
    }
    std::printf("consumer: %zu bytes for %zu values, gradcodec %s\n", frame.size(), grad.size(),
                library_version());
    return 0;
}
