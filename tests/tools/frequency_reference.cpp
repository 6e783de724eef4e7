// Writes the exact-arithmetic decode of every fft and dct tensor of a stream, computed in
// double precision and rounded once to binary32, as little-endian f32 values in stream order:
// the reference outputs shipped beside the golden fft/dct streams. Prints to stderr how close
// this build's decoder comes to the conformance bound (1.0 = at the bound).
//   usage: frequency_reference STREAM OUTPUT
#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include "../unit/frequency_reference.hpp"
#include "gradcodec/gradcodec.hpp"

using namespace gradcodec;

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: frequency_reference STREAM OUTPUT\n");
        return 2;
    }
    try {
        std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(argv[1], "rb"), &std::fclose);
        if (!in) fail(ErrorKind::io, std::string(argv[1]) + ": cannot open");
        FileSource source(in.get());
        StreamReader reader(source);
        std::vector<float> reference;
        double worst = 0;
        while (auto record = reader.next()) {
            const auto* t = std::get_if<TensorRecord>(&*record);
            if (!t || (t->codec_id != kCodecFft && t->codec_id != kCodecDct)) continue;
            const TensorMeta meta{t->path, t->dtype, t->shape};
            if (meta.dtype != DType::f32) fail(ErrorKind::usage, t->path + ": not an f32 tensor");
            const auto exact =
                testing::frequency_reference(t->codec_id, meta.element_count(), t->payload);
            std::vector<float> decoded(meta.element_count());
            decode_tensor(t->codec_id, meta, t->payload,
                          std::as_writable_bytes(std::span(decoded)));
            for (std::size_t i = 0; i < decoded.size(); ++i) {
                reference.push_back(static_cast<float>(exact.values[i]));
                const double error = std::fabs(decoded[i] - exact.values[i]);
                const double bound = testing::arithmetic_allowance(exact, i) +
                                     testing::binary32_ulp(exact.values[i]);
                worst = std::max(worst, error / bound);
            }
        }
        if (reference.empty())
            fail(ErrorKind::usage, std::string(argv[1]) + ": no fft or dct tensor");
        std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(argv[2], "wb"),
                                                            &std::fclose);
        if (!out ||
            std::fwrite(reference.data(), 4, reference.size(), out.get()) != reference.size())
            fail(ErrorKind::io, std::string(argv[2]) + ": cannot write");
        std::fprintf(stderr, "%s: %zu values; this decoder's worst error is %.4f of the bound\n",
                     argv[1], reference.size(), worst);
    } catch (const Error& e) {
        std::fprintf(stderr, "frequency_reference: %s\n", e.what());
        return e.kind() == ErrorKind::usage ? 2 : e.kind() == ErrorKind::io ? 4 : 3;
    }
    return 0;
}
