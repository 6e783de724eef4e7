// Writes an HDF5 file holding every kind of object gradcodec must carry, for the CLI tests:
// float16 built the way h5py builds it, bf16, f64, integers, h5py bools, scalar and empty
// datasets, string attributes of each layout, soft and external links, nested groups.
// usage: make_fixture OUT.h5 [--overflow-f16]
#include <hdf5.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

hid_t float16_type(bool brain) {
    hid_t t = H5Tcopy(H5T_IEEE_F32LE);
    if (brain) {
        H5Tset_fields(t, 15, 7, 8, 0, 7);
        H5Tset_size(t, 2);
        H5Tset_ebias(t, 127);
    } else {
        H5Tset_fields(t, 15, 10, 5, 0, 10);
        H5Tset_size(t, 2);
        H5Tset_ebias(t, 15);
    }
    return t;
}

void dataset(hid_t where, const char* name, hid_t file_type, hid_t mem_type,
             std::vector<hsize_t> dims, const void* data) {
    hid_t space = dims.empty() ? H5Screate(H5S_SCALAR)
                               : H5Screate_simple(int(dims.size()), dims.data(), nullptr);
    hid_t d = H5Dcreate2(where, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    std::size_t n = 1;
    for (auto x : dims) n *= x;
    if (n) H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Dclose(d);
    H5Sclose(space);
}

void attribute(hid_t where, const char* name, hid_t type, std::vector<hsize_t> dims,
               const void* data) {
    hid_t space = dims.empty() ? H5Screate(H5S_SCALAR)
                               : H5Screate_simple(int(dims.size()), dims.data(), nullptr);
    hid_t a = H5Acreate2(where, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, type, data);
    H5Aclose(a);
    H5Sclose(space);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: make_fixture OUT.h5 [--overflow-f16|--compound|--reference|--nan]\n");
        return 2;
    }
    const std::string mode = argc > 2 ? argv[2] : "";
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t step = H5Gcreate2(file, "step_00010", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t nested = H5Gcreate2(step, "block.0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

    std::vector<float> weights(6 * 7);
    for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = std::sin(float(i)) * 0.01f;
    if (mode == "--overflow-f16") weights[5] = 1.0e6f;
    if (mode == "--nan") weights[3] = std::nanf("");
    dataset(step, "fc.weight", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {6, 7}, weights.data());
    std::vector<double> doubles{1e-300, -2.5, 3.25, 1e10};
    dataset(step, "fc.bias", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {4}, doubles.data());
    hid_t f16 = float16_type(false), bf16 = float16_type(true);
    std::vector<float> halves{0.5f, -1.25f, 65504.0f, 6.1e-5f, 0.0f};
    dataset(nested, "half", f16, H5T_NATIVE_FLOAT, {5}, halves.data());
    dataset(nested, "brain", bf16, H5T_NATIVE_FLOAT, {5}, halves.data());
    float scalar = 3.5f;
    dataset(nested, "scalar", H5T_IEEE_F32BE, H5T_NATIVE_FLOAT, {}, &scalar);
    dataset(nested, "empty", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {0, 3}, nullptr);
    std::vector<std::int32_t> ints{-1, 2, -3, 4};
    dataset(step, "counts", H5T_STD_I32LE, H5T_NATIVE_INT32, {2, 2}, ints.data());
    std::vector<std::uint8_t> bytes{0, 1, 255};
    dataset(step, "mask_u8", H5T_STD_U8LE, H5T_NATIVE_UINT8, {3}, bytes.data());
    hid_t boolean = H5Tenum_create(H5T_NATIVE_INT8);
    signed char v = 0;
    H5Tenum_insert(boolean, "FALSE", &v);
    v = 1;
    H5Tenum_insert(boolean, "TRUE", &v);
    std::vector<signed char> flags{1, 0, 1};
    dataset(step, "flags", boolean, boolean, {3}, flags.data());
    if (mode == "--compound") {
        hid_t pair = H5Tcreate(H5T_COMPOUND, 8);
        H5Tinsert(pair, "a", 0, H5T_NATIVE_FLOAT);
        H5Tinsert(pair, "b", 4, H5T_NATIVE_FLOAT);
        float data[4] = {1, 2, 3, 4};
        dataset(step, "pairs", pair, pair, {2}, data);
    }
    if (mode == "--reference") {
        hobj_ref_t target{};
        H5Rcreate(&target, step, "fc.weight", H5R_OBJECT, -1);
        dataset(step, "pointer", H5T_STD_REF_OBJ, H5T_STD_REF_OBJ, {1}, &target);
    }

    double loss = 0.125;
    attribute(step, "loss", H5T_NATIVE_DOUBLE, {}, &loss);
    std::int64_t epoch[3] = {1, 2, 3};
    attribute(step, "epochs", H5T_NATIVE_INT64, {3}, epoch);
    hid_t vlen = H5Tcopy(H5T_C_S1);
    H5Tset_size(vlen, H5T_VARIABLE);
    H5Tset_cset(vlen, H5T_CSET_UTF8);
    const char* framework = "torch 2.1 \xc3\xa9";
    attribute(file, "framework", vlen, {}, &framework);
    const char* tags[2] = {"a", "longer tag"};
    attribute(file, "tags", vlen, {2}, tags);
    hid_t fixed = H5Tcopy(H5T_C_S1);
    H5Tset_size(fixed, 8);
    H5Tset_strpad(fixed, H5T_STR_NULLPAD);
    const char model[8] = {'C', 'N', 'N', 0, 0, 0, 0, 0};
    attribute(file, "model", fixed, {}, model);
    attribute(nested, "note", fixed, {}, model);

    H5Lcreate_soft("/step_00010/fc.weight", file, "latest_weight", H5P_DEFAULT, H5P_DEFAULT);
    H5Lcreate_external("other.h5", "/x", step, "elsewhere", H5P_DEFAULT, H5P_DEFAULT);

    H5Gclose(nested);
    H5Gclose(step);
    return H5Fclose(file) < 0 ? 1 : 0;
}
