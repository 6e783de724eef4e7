// Real-like gradient inputs for scripts/bench-process, built with the benchmarks:
//   make_gradients raw OUT.f32 MB            Student-t (3 degrees of freedom) x 1e-3, raw f32
//   make_gradients resnet50 OUT.h5 STEPS     STEPS groups of ResNet-50's 161 parameter tensors
//                                            (25.6M values each step), Student-t per tensor
// Gradients of deep networks are heavy-tailed; t3 is a common stand-in. Deterministic seeds.
#include <hdf5.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

struct Shape {
    std::string name;
    std::vector<hsize_t> dims;
};

// torchvision's resnet50: conv and batch-norm weights and biases, bottleneck blocks 3-4-6-3.
std::vector<Shape> resnet50() {
    std::vector<Shape> out;
    const auto conv = [&](const std::string& name, hsize_t o, hsize_t i, hsize_t k) {
        out.push_back({name + ".weight", {o, i, k, k}});
    };
    const auto bn = [&](const std::string& name, hsize_t c) {
        out.push_back({name + ".weight", {c}});
        out.push_back({name + ".bias", {c}});
    };
    conv("conv1", 64, 3, 7);
    bn("bn1", 64);
    hsize_t in = 64;
    const hsize_t planes[] = {64, 128, 256, 512};
    const int blocks[] = {3, 4, 6, 3};
    for (int layer = 0; layer < 4; ++layer) {
        for (int b = 0; b < blocks[layer]; ++b) {
            const std::string p =
                "layer" + std::to_string(layer + 1) + "." + std::to_string(b) + ".";
            const hsize_t w = planes[layer];
            conv(p + "conv1", w, in, 1);
            bn(p + "bn1", w);
            conv(p + "conv2", w, w, 3);
            bn(p + "bn2", w);
            conv(p + "conv3", 4 * w, w, 1);
            bn(p + "bn3", 4 * w);
            if (b == 0) {
                conv(p + "downsample.0", 4 * w, in, 1);
                bn(p + "downsample.1", 4 * w);
            }
            in = 4 * w;
        }
    }
    out.push_back({"fc.weight", {1000, 2048}});
    out.push_back({"fc.bias", {1000}});
    return out;
}

std::vector<float> student_t(std::size_t n, float scale, std::mt19937_64& rng) {
    std::student_t_distribution<float> t(3.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = scale * t(rng);
    return v;
}

int write_raw(const char* path, std::size_t megabytes) {
    std::mt19937_64 rng(94);
    const auto v = student_t(megabytes * 1000000 / 4, 1e-3f, rng);
    std::FILE* f = std::fopen(path, "wb");
    if (!f || std::fwrite(v.data(), 4, v.size(), f) != v.size() || std::fclose(f) != 0) {
        std::perror(path);
        return 1;
    }
    return 0;
}

int write_resnet50(const char* path, int steps) {
    std::mt19937_64 rng(50);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) return 1;
    const auto shapes = resnet50();
    for (int s = 0; s < steps; ++s) {
        char group_name[32];
        std::snprintf(group_name, sizeof group_name, "step_%05d", 10 * (s + 1));
        hid_t group = H5Gcreate2(file, group_name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        for (const Shape& shape : shapes) {
            std::size_t n = 1;
            for (const hsize_t d : shape.dims) n *= d;
            // Layers differ in scale by orders of magnitude, as real gradients do.
            const float scale = 1e-4f * static_cast<float>(1 + rng() % 100);
            const auto v = student_t(n, scale, rng);
            hid_t space =
                H5Screate_simple(static_cast<int>(shape.dims.size()), shape.dims.data(), nullptr);
            hid_t d = H5Dcreate2(group, shape.name.c_str(), H5T_IEEE_F32LE, space, H5P_DEFAULT,
                                 H5P_DEFAULT, H5P_DEFAULT);
            H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
            H5Dclose(d);
            H5Sclose(space);
        }
        H5Gclose(group);
    }
    return H5Fclose(file) < 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc == 4 ? argv[1] : "";
    if (mode == "raw") return write_raw(argv[2], std::strtoull(argv[3], nullptr, 10));
    if (mode == "resnet50") return write_resnet50(argv[2], std::atoi(argv[3]));
    std::fprintf(stderr,
                 "usage: make_gradients raw OUT.f32 MB | make_gradients resnet50 OUT.h5 STEPS\n");
    return 2;
}
