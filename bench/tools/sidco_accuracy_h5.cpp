// Measurement tool, not built by CMake: SIDCo/DGC achieved/target density and position cost
// against log2 C(n,k) on HDF5 gradient dumps (float datasets of >= 1e4 values) or on
// Student-t3 synthetic tensors ("t3:N" = ten tensors of N values). Build from the repo root
// after `cmake --build build`:
//   g++ -std=c++20 -O2 -Ilibcodec/include -Ilibcodec/src -I/usr/include/hdf5/serial \
//     bench/tools/sidco_accuracy_h5.cpp build/libcodec/libgradcodec.a \
//     -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5 -lzstd -o /tmp/sidco_accuracy
//   /tmp/sidco_accuracy samples/cnn_digits.h5
#include <hdf5.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>
#include "common/byte_io.hpp"
#include "index/position_coder.hpp"
#include "select/dgc.hpp"
#include "select/sidco.hpp"
#include "select/topk.hpp"
using namespace gradcodec;
struct T {
    std::string name;
    std::vector<float> x;
};
static std::vector<T> tensors;
static herr_t visit(hid_t obj, const char* name, const H5O_info_t* info, void*) {
    if (info->type != H5O_TYPE_DATASET) return 0;
    hid_t d = H5Dopen2(obj, name, H5P_DEFAULT);
    hid_t s = H5Dget_space(d);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    hid_t t = H5Dget_type(d);
    if (H5Tget_class(t) == H5T_FLOAT && n >= 10000) {
        T e{name, std::vector<float>(n)};
        H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, e.x.data());
        tensors.push_back(std::move(e));
    }
    H5Tclose(t);
    H5Sclose(s);
    H5Dclose(d);
    return 0;
}
static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}
int main(int argc, char** argv) {
    for (int a = 1; a < argc; ++a) {
        std::string arg = argv[a];
        if (arg.rfind("t3:", 0) == 0) {
            std::mt19937_64 rng(7);
            std::student_t_distribution<float> t(3);
            for (int i = 0; i < 10; ++i) {
                T e{"t3_" + std::to_string(i), std::vector<float>(std::stoul(arg.substr(3)))};
                for (auto& v : e.x) v = t(rng) * 1e-3f;
                tensors.push_back(std::move(e));
            }
            continue;
        }
        hid_t f = H5Fopen(argv[a], H5F_ACC_RDONLY, H5P_DEFAULT);
        H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_NATIVE, visit, nullptr, H5O_INFO_BASIC);
        H5Fclose(f);
    }
    std::printf("%zu tensors of >= 1e4 values\n", tensors.size());
    const char* dn[] = {"", "exp", "gpareto", "gamma"};
    for (double d : {0.01, 0.001}) {
        for (int dist = 1; dist <= 3; ++dist) {
            for (int stages : {1, 0}) {
                std::vector<double> r;
                std::vector<double> st;
                for (auto& t : tensors) {
                    auto th = sidco_threshold(t.x, {static_cast<Distribution>(dist), d, stages});
                    r.push_back(th.count / (d * t.x.size()));
                    st.push_back(th.stages);
                }
                std::printf(
                    "density %-6g %-8s stages=%-4s median achieved/target %.3f  (min %.3f max "
                    "%.3f, median stages %.1f)\n",
                    d, dn[dist], stages ? "1" : "auto", median(r),
                    *std::min_element(r.begin(), r.end()), *std::max_element(r.begin(), r.end()),
                    median(st));
            }
        }
        std::vector<double> r;
        for (auto& t : tensors)
            r.push_back(select_dgc(t.x, {d, 0.01, 0}).indices.size() / (d * t.x.size()));
        std::printf("density %-6g dgc      median achieved/target %.3f\n", d, median(r));
    }
    for (double d : {0.1, 0.01, 0.001}) {
        double bits = 0, bound = 0;
        for (auto& t : tensors) {
            auto s = select_topk(t.x, topk_count(t.x.size(), d));
            std::vector<std::uint8_t> b;
            ByteWriter w(b);
            encode_positions(s.indices, t.x.size(), w);
            auto c = position_costs(s.indices, t.x.size());
            bits += 8.0 * std::min({c.bitmap, c.rice_gaps, c.elias_fano, c.rice_blocks});
            bound += log2_binomial(t.x.size(), s.indices.size());
        }
        std::printf(
            "top-k density %g: position data bits / log2 C(n,k) = %.4f (sum over tensors)\n", d,
            bits / bound);
    }
}
