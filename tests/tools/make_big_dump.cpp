// Writes a dump with one large float32 tensor of gradient-like values and many small ones,
// for the peak-memory test. usage: make_big_dump OUT.h5 MIB [COUNT]: COUNT large tensors
// (default 1) of MIB each, all in the root group.
#include <hdf5.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 3 && argc != 4) return 2;
    const int big = argc == 4 ? std::atoi(argv[3]) : 1;
    const std::size_t n = std::strtoull(argv[2], nullptr, 10) << 18;  // MiB of float32
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    std::mt19937_64 rng(1);
    std::exponential_distribution<float> magnitude(1000.0f);
    auto write = [&](const std::string& name, std::size_t count) {
        std::vector<float> v(count);
        for (auto& x : v)
            x = (rng() & 3) == 0 ? 0.0f : (rng() & 1) ? magnitude(rng) : -magnitude(rng);
        const hsize_t dims[1] = {count};
        hid_t space = H5Screate_simple(1, dims, nullptr);
        hid_t d = H5Dcreate2(file, name.c_str(), H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);
        H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
        H5Dclose(d);
        H5Sclose(space);
    };
    for (int i = 0; i < big; ++i)
        write(i == 0 ? "big.weight" : "big_" + std::to_string(i) + ".weight", n);
    for (int i = 0; i < 200; ++i) write("small_" + std::to_string(i), 4096);
    return H5Fclose(file) < 0 ? 1 : 0;
}
