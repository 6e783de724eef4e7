// Writes the fuzzers' seed corpus from real streams made by the library:
//   make_seed_corpus DIR   ->  DIR/fuzz_stream/*.gcs, DIR/fuzz_payload/*.bin and
//                              DIR/fuzz_frame/h5z-*.bin
// One stream per usable codec spec (plus a mixed one and an empty one), one payload input per
// (spec, float tensor), and for each spec that runs per chunk in gradcodec's HDF5 filter, one
// filter input per dtype that encodes a chunk and one that decodes a chunk the filter wrote
// (h5z_input.hpp). Rerun it when codecs are added; scripts/fuzz merges the result.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec_h5z.h"
#include "gradcodec_h5z_params.hpp"
#include "h5z_dataset.hpp"
#include "payload_input.hpp"
#include "sample_stream.hpp"

namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() ||
        std::fclose(f) != 0) {
        std::perror(path.c_str());
        std::exit(4);
    }
}

// "topk:density=0.3,values=f16" -> "topk-density-0.3-values-f16", a portable file name.
std::string file_stem(const std::string& spec) {
    std::string out;
    for (char c : spec) out += (c == ':' || c == ',' || c == '=') ? '-' : c;
    return out;
}

std::vector<std::uint8_t> empty_stream() {
    gradcodec::VectorSink sink;
    gradcodec::StreamWriter writer(sink);
    writer.finish();
    return sink.bytes;
}

// `count` values of `dtype`, gradient-like for the float types.
std::vector<std::uint8_t> chunk_values(gradcodec::DType dtype, std::size_t count) {
    using gradcodec::DType;
    const std::size_t size = gradcodec::dtype_size(dtype);
    std::vector<std::uint8_t> out(count * size);
    for (std::size_t i = 0; i < count; ++i) {
        const double x = std::sin(0.37 * double(i)) * 0.01 * double(1 + i % 7);
        std::uint64_t bits = 0;
        if (dtype == DType::f32 || dtype == DType::bf16) {
            const float f = static_cast<float>(x);
            std::uint32_t u = 0;
            std::memcpy(&u, &f, 4);
            bits = dtype == DType::f32 ? u : u >> 16;
        } else if (dtype == DType::f64) {
            std::memcpy(&bits, &x, 8);
        } else if (dtype == DType::f16) {
            bits = (i % 2) << 15 | (8 + i % 6) << 10 | (i * 37) % 1024;
        } else {
            bits = i * 31 % 251;
        }
        for (std::size_t b = 0; b < size; ++b)
            out[i * size + b] = static_cast<std::uint8_t>(bits >> (8 * b));
    }
    return out;
}

// fuzz_frame's filter inputs for `spec` on a chunk of `dims` of `dtype`: the values to encode,
// and the frame the filter wrote for them with the parameters set_local stored (as HDF5 reads
// them, and with `verbatim` as given). Returns how many it wrote.
std::size_t write_h5z_seeds(const fs::path& dir, const std::string& spec, gradcodec::DType dtype,
                            std::vector<std::uint64_t> dims, bool verbatim = false) {
    const auto type = gcfuzz::chunk_type_index(dtype);
    if (!type) return 0;
    std::uint64_t count = 1;
    for (const auto d : dims) count *= d;
    const std::vector<std::uint8_t> values = chunk_values(dtype, count);
    gcfuzz::H5zInput input;
    input.mode = gcfuzz::kH5zThroughHdf5;
    input.type = *type;
    input.chunk_dims = dims;
    input.cd = gradcodec::h5z::pack_filter_params({1, 0, 0, 0, 0, spec});
    input.chunk = values;
    const gcfuzz::H5zDataset dataset(input);
    if (!dataset.ok()) return 0;
    gcfuzz::FilterRun run;
    gcfuzz::load(run, values);
    gcfuzz::run_filter(run, 0, dataset.cd(), values.size());
    if (run.result == 0) return 0;
    std::string stem = "h5z-" + file_stem(spec) + "-" + std::string(gradcodec::dtype_name(dtype));
    for (const auto d : dims) stem += "-" + std::to_string(d);
    write_file(dir / (stem + "-encode.bin"), gcfuzz::h5z_input_bytes(input));
    input.cd = dataset.cd();
    input.chunk = {static_cast<const std::uint8_t*>(run.buf), run.result};
    input.mode = gcfuzz::kH5zReverse | gcfuzz::kH5zThroughHdf5;
    write_file(dir / (stem + "-decode.bin"), gcfuzz::h5z_input_bytes(input));
    if (!verbatim) return 2;
    input.mode = gcfuzz::kH5zReverse | gcfuzz::kH5zVerbatim;
    write_file(dir / (stem + "-decode-verbatim.bin"), gcfuzz::h5z_input_bytes(input));
    return 3;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_seed_corpus DIR\n");
        return 2;
    }
    const fs::path streams = fs::path(argv[1]) / "fuzz_stream";
    const fs::path payloads = fs::path(argv[1]) / "fuzz_payload";
    fs::create_directories(streams);
    fs::create_directories(payloads);
    const auto specs = gctest::usable_codec_specs();
    write_file(streams / "empty.gcs", empty_stream());
    write_file(streams / "mixed.gcs", gctest::sample_stream(specs));
    std::size_t count = 2;
    for (const std::string& spec : specs) {
        write_file(streams / (file_stem(spec) + ".gcs"), gctest::sample_stream({spec}));
        ++count;
        for (const auto& tensor : gctest::sample_tensors()) {
            if (!gradcodec::is_float(tensor.dtype) && spec != "lossless") continue;
            try {
                const auto record = gctest::encode_record(tensor, spec);
                const std::string leaf = tensor.path.substr(tensor.path.rfind('/') + 1);
                const std::string name = file_stem(spec) + "-" + leaf + ".bin";
                write_file(payloads / name,
                           gcfuzz::payload_input_bytes(record.codec_id, record.dtype, record.shape,
                                                       record.payload));
                ++count;
            } catch (const gradcodec::Error& e) {
                std::fprintf(stderr, "skipping %s on %s: %s\n", spec.c_str(), tensor.path.c_str(),
                             e.what());
            }
        }
    }
    const fs::path frames = fs::path(argv[1]) / "fuzz_frame";
    fs::create_directories(frames);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    if (gradcodec_h5z_register() < 0) {
        std::fprintf(stderr, "make_seed_corpus: cannot register gradcodec's HDF5 filter\n");
        return 4;
    }
    using gradcodec::DType;
    for (const std::string& spec : specs) {
        const std::uint16_t id = gradcodec::Codec::compile(spec).id();
        if (!gradcodec::h5z::codec_runs_per_chunk(id)) continue;
        count += write_h5z_seeds(frames, spec, DType::f32, {256});
        // The other dtypes and a 3-D chunk once per codec id (lossless: the integer ones).
        if (spec == "lossless" || spec == "cast" || spec == "rangeq:bits=8") {
            for (const DType dtype : {DType::f16, DType::bf16, DType::f64})
                count += write_h5z_seeds(frames, spec, dtype, {256});
            count += write_h5z_seeds(frames, spec, DType::f32, {12, 5, 3}, true);
        }
        if (spec == "lossless") {
            for (const DType dtype : {DType::i32, DType::u8, DType::i64})
                count += write_h5z_seeds(frames, spec, dtype, {256});
        }
    }
    std::printf("wrote %zu seeds for %zu codec specs under %s\n", count, specs.size(), argv[1]);
    return 0;
}
