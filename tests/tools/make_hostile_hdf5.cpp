// Writes HDF5 files that are legal but hostile to a reader: deep trees, wide groups, many or
// large attributes, storage outside the file, datasets declaring far more than they hold.
// usage: make_hostile_hdf5 MODE OUT.h5 [ARG]
//   groups-only            one group, no dataset
//   deep N                 groups nested N deep
//   wide N                 N datasets in one group (latest format: a dense link index)
//   many-attrs N           a dataset with N attributes (dense attribute storage)
//   big-attr               a 100,000-byte attribute (dense storage), and one of 0 elements
//   external FILE          a dataset whose raw data lives in FILE (external storage)
//   vds FILE               a virtual dataset mapping /data of FILE
//   unwritten N            a chunked f32 dataset declaring N elements, none written
//   odd-names              float datasets named with an escape sequence and with invalid UTF-8
//   strings                fixed- and variable-length string datasets beside a float one
//   byte-order ORDER       /x, 1000 f32 values stored little- or big-endian (ORDER: le, be)
//   past-eof               /x, whose 1000 f32 values lie past the end of the file: the file is
//                          cut short and its end address (superblock version 0) moved to match
#include <hdf5.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

hid_t latest_file(const char* path) {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    return file;
}

void f32_dataset(hid_t where, const char* name, hsize_t n) {
    hid_t space = H5Screate_simple(1, &n, nullptr);
    hid_t d = H5Dcreate2(where, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    std::vector<float> values(n, 0.5f);
    if (n) H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(d);
    H5Sclose(space);
}

void u8_attribute(hid_t where, const char* name, hsize_t n) {
    hid_t space = H5Screate_simple(1, &n, nullptr);
    hid_t a = H5Acreate2(where, name, H5T_STD_U8LE, space, H5P_DEFAULT, H5P_DEFAULT);
    std::vector<unsigned char> bytes(n);
    for (hsize_t i = 0; i < n; ++i) bytes[i] = static_cast<unsigned char>(i * 7);
    if (n) H5Awrite(a, H5T_NATIVE_UCHAR, bytes.data());
    H5Aclose(a);
    H5Sclose(space);
}

void values_1000(hid_t where, hid_t file_type) {
    hsize_t n = 1000;
    std::vector<float> values(n);
    for (hsize_t i = 0; i < n; ++i) values[i] = 0.25f * static_cast<float>(i) - 100.0f;
    hid_t space = H5Screate_simple(1, &n, nullptr);
    hid_t d = H5Dcreate2(where, "x", file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(d);
    H5Sclose(space);
}

// A version-0 superblock holds the end-of-file address, unchecksummed, at byte 40.
int cut_past_eof(const char* path) {
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    values_1000(file, H5T_IEEE_F32LE);
    hid_t d = H5Dopen2(file, "x", H5P_DEFAULT);
    const haddr_t offset = H5Dget_offset(d);
    H5Dclose(d);
    H5Fclose(file);
    const std::uint64_t end = offset + 2000;  // half of the values
    FILE* f = std::fopen(path, "r+b");
    std::fseek(f, 0, SEEK_END);
    if (static_cast<std::uint64_t>(std::ftell(f)) != offset + 4000) {
        std::fprintf(stderr, "make_hostile_hdf5: the values are not at the end of the file\n");
        return 1;
    }
    unsigned char address[8];
    for (int i = 0; i < 8; ++i) address[i] = static_cast<unsigned char>(end >> (8 * i));
    std::fseek(f, 40, SEEK_SET);
    std::fwrite(address, 1, 8, f);
    std::fclose(f);
    return truncate(path, static_cast<off_t>(end)) == 0 ? 0 : 1;
}

long long number(const char* text) {
    return text ? std::atoll(text) : 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: make_hostile_hdf5 MODE OUT.h5 [ARG]\n");
        return 2;
    }
    const std::string mode = argv[1];
    const char* arg = argc > 3 ? argv[3] : nullptr;
    if (mode == "past-eof") return cut_past_eof(argv[2]);
    hid_t file = latest_file(argv[2]);
    if (mode == "groups-only") {
        H5Gclose(H5Gcreate2(file, "step_00001", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    } else if (mode == "deep") {
        hid_t g = H5Gopen2(file, "/", H5P_DEFAULT);
        for (long long i = 0; i < number(arg); ++i) {
            hid_t next = H5Gcreate2(g, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            H5Gclose(g);
            g = next;
        }
        f32_dataset(g, "leaf", 4);
        H5Gclose(g);
    } else if (mode == "wide") {
        for (long long i = 0; i < number(arg); ++i)
            f32_dataset(file, ("p" + std::to_string(i)).c_str(), 1);
    } else if (mode == "many-attrs") {
        f32_dataset(file, "x", 4);
        hid_t d = H5Dopen2(file, "x", H5P_DEFAULT);
        for (long long i = 0; i < number(arg); ++i)
            u8_attribute(d, ("a" + std::to_string(i)).c_str(), 1);
        H5Dclose(d);
    } else if (mode == "big-attr") {
        f32_dataset(file, "x", 4);
        hid_t d = H5Dopen2(file, "x", H5P_DEFAULT);
        u8_attribute(d, "big", 100000);
        u8_attribute(d, "empty", 0);
        H5Dclose(d);
    } else if (mode == "external") {
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_external(dcpl, arg, 0, 64);
        hsize_t n = 64;
        hid_t space = H5Screate_simple(1, &n, nullptr);
        H5Dclose(H5Dcreate2(file, "leak", H5T_STD_U8LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
        H5Sclose(space);
        H5Pclose(dcpl);
    } else if (mode == "vds") {
        hsize_t n = 4;
        hid_t space = H5Screate_simple(1, &n, nullptr);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_virtual(dcpl, space, arg, "/data", space);
        H5Dclose(
            H5Dcreate2(file, "virtual", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
        H5Pclose(dcpl);
        H5Sclose(space);
    } else if (mode == "unwritten") {
        hsize_t n = static_cast<hsize_t>(number(arg));
        hsize_t chunk = n < (1u << 20) ? (n ? n : 1) : (1u << 20);
        hid_t space = H5Screate_simple(1, &n, nullptr);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 1, &chunk);
        H5Dclose(H5Dcreate2(file, "huge", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
        H5Pclose(dcpl);
        H5Sclose(space);
    } else if (mode == "byte-order") {
        values_1000(file, std::strcmp(arg ? arg : "", "be") == 0 ? H5T_IEEE_F32BE : H5T_IEEE_F32LE);
    } else if (mode == "odd-names") {
        f32_dataset(file, "evil\x1b[31mred", 4);
        f32_dataset(file, "bad\xff\xfeutf8", 4);
    } else if (mode == "strings") {
        f32_dataset(file, "weights", 8);
        hsize_t n = 3;
        hid_t space = H5Screate_simple(1, &n, nullptr);
        hid_t fixed = H5Tcopy(H5T_C_S1);
        H5Tset_size(fixed, 8);
        hid_t d =
            H5Dcreate2(file, "names_fixed", fixed, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(d, fixed, H5S_ALL, H5S_ALL, H5P_DEFAULT, "fc.w\0\0\0\0fc.b\0\0\0\0conv1.w\0");
        H5Dclose(d);
        hid_t vlen = H5Tcopy(H5T_C_S1);
        H5Tset_size(vlen, H5T_VARIABLE);
        const char* names[3] = {"layer.0.weight", "", "layer.1.bias"};
        d = H5Dcreate2(file, "names_vlen", vlen, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(d, vlen, H5S_ALL, H5S_ALL, H5P_DEFAULT, names);
        H5Dclose(d);
        H5Tclose(fixed);
        H5Tclose(vlen);
        H5Sclose(space);
    } else {
        std::fprintf(stderr, "make_hostile_hdf5: unknown mode %s\n", mode.c_str());
        return 2;
    }
    return H5Fclose(file) < 0 ? 1 : 0;
}
