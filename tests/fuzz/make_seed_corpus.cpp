// Writes the fuzzers' seed corpus from real streams made by the library:
//   make_seed_corpus DIR   ->  DIR/fuzz_stream/*.gcs and DIR/fuzz_payload/*.bin
// One stream per usable codec spec (plus a mixed one and an empty one), and one payload input
// per (spec, float tensor). Rerun it when codecs are added; scripts/fuzz merges the result.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "gradcodec/error.hpp"
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
    std::printf("wrote %zu seeds for %zu codec specs under %s\n", count, specs.size(), argv[1]);
    return 0;
}
