// The filter's parameter layout and its chunk callback, called the way HDF5's pipeline calls
// it: a chunk in an H5allocate_memory buffer that the filter replaces.
#define CATCH_CONFIG_MAIN
#include <hdf5.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "filter_class.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/frame.hpp"
#include "gradcodec_h5z.h"
#include "gradcodec_h5z_params.hpp"

using gradcodec::Error;
using gradcodec::h5z::FilterParams;
using gradcodec::h5z::pack_filter_params;
using gradcodec::h5z::unpack_filter_params;

namespace {

FilterParams rangeq_params(std::uint64_t count) {
    return FilterParams{GRADCODEC_H5Z_LAYOUT_VERSION, 3, 3, count, 0, "rangeq:bits=8"};
}

struct Chunk {
    void* data = nullptr;
    std::size_t size = 0;      // bytes in use
    std::size_t capacity = 0;  // allocated bytes
    Chunk() = default;
    Chunk(Chunk&& other) noexcept
        : data(std::exchange(other.data, nullptr)), size(other.size), capacity(other.capacity) {}
    Chunk(const Chunk&) = delete;
    Chunk& operator=(const Chunk&) = delete;
    Chunk& operator=(Chunk&&) = delete;
    ~Chunk() { H5free_memory(data); }
};

Chunk chunk_of(const std::vector<float>& values) {
    Chunk c;
    c.size = c.capacity = values.size() * sizeof(float);
    c.data = H5allocate_memory(c.size, false);
    std::memcpy(c.data, values.data(), c.size);
    return c;
}

// A dataset of `count` f32 values in one chunk filtered by `spec`, open in an in-memory file:
// on a read the filter confirms the chunk's size against the open datasets that carry the
// parameters it is given, so decoding needs one.
class OpenDataset {
  public:
    OpenDataset(std::uint64_t count, const std::string& spec) {
        REQUIRE(gradcodec_h5z_register() == 0);
        const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_fapl_core(fapl, 1 << 16, 0);  // in memory, never written to disk
        file_ = H5Fcreate(("filter_test_" + std::to_string(++files_) + ".h5").c_str(),
                          H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        H5Pclose(fapl);
        REQUIRE(file_ >= 0);
        const hsize_t dims[1] = {count};
        const hid_t space = H5Screate_simple(1, dims, nullptr);
        const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 1, dims);
        const auto cd = pack_filter_params(FilterParams{1, 0, 0, 0, 0, spec});
        H5Pset_filter(dcpl, GRADCODEC_H5Z_FILTER_ID, H5Z_FLAG_MANDATORY, cd.size(), cd.data());
        dataset_ = H5Dcreate2(file_, "x", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Pclose(dcpl);
        H5Sclose(space);
        REQUIRE(dataset_ >= 0);
    }
    OpenDataset(const OpenDataset&) = delete;
    OpenDataset& operator=(const OpenDataset&) = delete;
    ~OpenDataset() {
        H5Dclose(dataset_);
        H5Fclose(file_);
    }

    // The parameters set_local stored for the dataset.
    FilterParams params() const {
        const hid_t dcpl = H5Dget_create_plist(dataset_);
        std::vector<unsigned> cd(256);
        std::size_t count = cd.size();
        unsigned flags = 0;
        H5Pget_filter_by_id2(dcpl, GRADCODEC_H5Z_FILTER_ID, &flags, &count, cd.data(), 0, nullptr,
                             nullptr);
        H5Pclose(dcpl);
        cd.resize(count);
        return unpack_filter_params(cd);
    }

  private:
    static inline int files_ = 0;
    hid_t file_ = -1;
    hid_t dataset_ = -1;
};

// The descriptions on HDF5's error stack, innermost first.
std::string errors() {
    std::string text;
    H5Ewalk2(
        H5E_DEFAULT, H5E_WALK_UPWARD,
        [](unsigned, const H5E_error2_t* e, void* out) -> herr_t {
            *static_cast<std::string*>(out) += std::string(e->desc ? e->desc : "") + "\n";
            return 0;
        },
        &text);
    return text;
}

// Runs the filter over `chunk` in place; returns its result (0 = failure).
std::size_t run_filter(const FilterParams& params, Chunk& chunk, bool reverse) {
    const auto cd = pack_filter_params(params);
    const std::size_t n =
        gradcodec::h5z::filter_class()->filter(reverse ? H5Z_FLAG_REVERSE : 0u, cd.size(),
                                               cd.data(), chunk.size, &chunk.capacity, &chunk.data);
    if (n != 0) chunk.size = n;
    return n;
}

std::vector<float> ramp(std::size_t n) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 97) * 0.01f - 0.4f;
    return v;
}

}  // namespace

TEST_CASE("Filter parameters pack the spec four bytes per value and unpack to the same fields") {
    const FilterParams params{1,
                              4,
                              3,
                              (std::uint64_t{1} << 32) + 5,
                              GRADCODEC_H5Z_FLAG_ALLOW_NONFINITE,
                              "topk:density=0.01"};
    const auto cd = pack_filter_params(params);
    REQUIRE(cd.size() == 7 + 5);
    CHECK(cd[3] == 5u);
    CHECK(cd[4] == 1u);
    CHECK(cd[6] == 17u);
    CHECK(cd[7] ==
          (unsigned('t') | unsigned('o') << 8 | unsigned('p') << 16 | unsigned('k') << 24));
    const FilterParams back = unpack_filter_params(cd);
    CHECK(back.codec_id == 4);
    CHECK(back.dtype_code == 3);
    CHECK(back.element_count == params.element_count);
    CHECK(back.flags == params.flags);
    CHECK(back.spec == params.spec);
}

TEST_CASE("Unpacking refuses another layout version, unknown flags and a wrong length") {
    auto cd = pack_filter_params(rangeq_params(10));
    auto version2 = cd;
    version2[0] = 2;
    CHECK_THROWS_WITH(unpack_filter_params(version2), Catch::Contains("layout version 2"));
    auto flags = cd;
    flags[5] = 2;
    CHECK_THROWS_WITH(unpack_filter_params(flags), Catch::Contains("unknown flags"));
    auto longer = cd;
    longer.push_back(0);
    CHECK_THROWS_WITH(unpack_filter_params(longer), Catch::Contains("disagrees"));
    CHECK_THROWS_AS(unpack_filter_params(std::span(cd).first(5)), Error);
}

TEST_CASE("A chunk the filter encodes is the library's frame and decodes back to its values") {
    const auto values = ramp(1000);
    const auto bytes = std::as_bytes(std::span(values));
    const gradcodec::TensorMeta meta{"chunk", gradcodec::DType::f32, {values.size()}};
    const auto frame =
        gradcodec::encode_frame(gradcodec::Codec::compile("rangeq:bits=8"), meta, bytes);
    std::vector<float> expected(values.size());
    gradcodec::decode_frame_into(frame, std::as_writable_bytes(std::span(expected)));

    const OpenDataset dataset(1000, "rangeq:bits=8");
    const FilterParams params = dataset.params();
    CHECK(params.element_count == 1000);
    Chunk chunk = chunk_of(values);
    REQUIRE(run_filter(params, chunk, false) == frame.size());
    CHECK(std::memcmp(chunk.data, frame.data(), frame.size()) == 0);
    REQUIRE(run_filter(params, chunk, true) == bytes.size());
    CHECK(std::memcmp(chunk.data, expected.data(), bytes.size()) == 0);
    CHECK(expected != values);  // lossy: the check above is not the identity
}

TEST_CASE(
    "A damaged, truncated or mismatched frame fails the filter with an error on HDF5's stack") {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const auto values = ramp(500);
    const OpenDataset dataset(500, "rangeq:bits=8");
    const FilterParams params = dataset.params();
    const auto encoded = [&] {
        Chunk c = chunk_of(values);
        REQUIRE(run_filter(params, c, false) != 0);
        return c;
    };
    SECTION("a flipped payload byte") {
        Chunk c = encoded();
        static_cast<std::uint8_t*>(c.data)[c.size / 2] ^= 0x40;
        CHECK(run_filter(params, c, true) == 0);
        CHECK(H5Eget_num(H5E_DEFAULT) > 0);
    }
    SECTION("a truncated frame") {
        Chunk c = encoded();
        c.size -= 9;
        CHECK(run_filter(params, c, true) == 0);
        CHECK(H5Eget_num(H5E_DEFAULT) > 0);
    }
    SECTION("a frame of another element count than the chunk") {
        const OpenDataset smaller(400, "rangeq:bits=8");
        Chunk c = encoded();
        CHECK(run_filter(smaller.params(), c, true) == 0);
        CHECK_THAT(errors(), Catch::Contains("the chunk's frame holds 500 f32 values"));
    }
}

TEST_CASE("Encoding refuses a chunk whose size disagrees with the parameters") {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    Chunk c = chunk_of(ramp(100));
    CHECK(run_filter(rangeq_params(99), c, false) == 0);
    CHECK(H5Eget_num(H5E_DEFAULT) > 0);
}

TEST_CASE("Decoding refuses parameters that no open dataset carries, before allocating") {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const auto values = ramp(16);
    const OpenDataset dataset(16, "rangeq:bits=8");
    Chunk c = chunk_of(values);
    REQUIRE(run_filter(dataset.params(), c, false) != 0);
    SECTION("parameters of the open dataset decode") {
        CHECK(run_filter(dataset.params(), c, true) == values.size() * sizeof(float));
    }
    SECTION("parameters of no open dataset") {
        FilterParams other = dataset.params();
        other.spec += ",mantissa=23";
        CHECK(run_filter(other, c, true) == 0);
        CHECK_THAT(errors(), Catch::Contains("no open dataset carries these filter parameters"));
    }
}

TEST_CASE("Decoding refuses a count beyond HDF5's 4 GiB chunk limit before anything else") {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    Chunk c = chunk_of(ramp(4));
    for (const std::uint64_t count :
         {std::uint64_t{1} << 30, std::uint64_t{1} << 62, ~std::uint64_t{0}}) {
        CHECK(run_filter(rangeq_params(count), c, true) == 0);
        CHECK_THAT(errors(), Catch::Contains("more than HDF5's 4 GiB chunk limit"));
        CHECK(run_filter(rangeq_params(count), c, false) == 0);
    }
    CHECK(run_filter(rangeq_params(0), c, true) == 0);
    CHECK_THAT(errors(), Catch::Contains("no chunk size"));
}

TEST_CASE("The filter runs under its own ID and refuses a dataset that names it under another") {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    H5Z_class2_t renamed = *gradcodec::h5z::filter_class();
    renamed.id = GRADCODEC_H5Z_FILTER_ID - 1;
    REQUIRE(H5Zregister(&renamed) >= 0);
    REQUIRE(gradcodec_h5z_register() == 0);
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(fapl, 1 << 16, 0);  // in memory, never written to disk
    const hid_t file = H5Fcreate("filter_id_test.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    REQUIRE(file >= 0);
    const hsize_t dims[1] = {16};
    const hid_t space = H5Screate_simple(1, dims, nullptr);
    const auto cd = pack_filter_params(FilterParams{1, 0, 0, 0, 0, "lossless"});
    const auto create = [&](H5Z_filter_t id, const char* name) {
        const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 1, dims);
        H5Pset_filter(dcpl, id, H5Z_FLAG_MANDATORY, cd.size(), cd.data());
        const hid_t dataset =
            H5Dcreate2(file, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Pclose(dcpl);
        if (dataset >= 0) H5Dclose(dataset);
        return dataset >= 0;
    };
    CHECK_FALSE(create(renamed.id, "renamed"));
    CHECK(create(GRADCODEC_H5Z_FILTER_ID, "own"));
    H5Sclose(space);
    H5Fclose(file);
    H5Pclose(fapl);
    H5Zunregister(renamed.id);
}
