// Writes streams that are valid byte for byte (checksums, sizes, end marker) but whose content
// is hostile to a consumer that builds an HDF5 file: odd or colliding paths, self links,
// duplicate attributes, objects under links. For tests/cli/hostile_streams.sh, which knows
// which of them must decode and which must be refused.
// usage: make_hostile_streams DIR   (writes DIR/<case>.gcs)
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gradcodec/gradcodec.hpp"

using namespace gradcodec;

namespace {

TensorRecord tensor(const std::string& path, std::vector<std::uint64_t> shape = {2}) {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    const TensorMeta meta{path, DType::f32, shape};
    const std::vector<std::byte> zeros(n * 4);
    EncodedTensor e = encode_tensor(parse_codec_spec("lossless"), meta, zeros);
    return TensorRecord{path,       DType::f32, std::move(shape),    {},
                        e.codec_id, e.spec,     std::move(e.payload)};
}

Attribute number(const std::string& name) {
    Attribute a;
    a.name = name;
    a.dtype = DType::u8;
    a.data = {7};
    return a;
}

using Case = std::function<void(StreamWriter&)>;

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_hostile_streams DIR\n");
        return 2;
    }
    const std::vector<std::pair<std::string, Case>> cases = {
        {"empty-path", [](StreamWriter& w) { w.write(tensor("")); }},
        {"relative-path", [](StreamWriter& w) { w.write(tensor("a/b")); }},
        {"root-as-tensor", [](StreamWriter& w) { w.write(tensor("/")); }},
        {"dot-dot-path", [](StreamWriter& w) { w.write(tensor("/a/../../b")); }},
        {"double-slash", [](StreamWriter& w) { w.write(tensor("/a//b")); }},
        {"trailing-slash", [](StreamWriter& w) { w.write(tensor("/a/")); }},
        {"duplicate-tensor",
         [](StreamWriter& w) {
             w.write(tensor("/t"));
             w.write(tensor("/t"));
         }},
        {"tensor-under-tensor",
         [](StreamWriter& w) {
             w.write(tensor("/t"));
             w.write(tensor("/t/u"));
         }},
        {"group-over-tensor",
         [](StreamWriter& w) {
             w.write(tensor("/t"));
             w.write(GroupRecord{"/t", {}});
         }},
        {"duplicate-group",
         [](StreamWriter& w) {
             w.write(GroupRecord{"/g", {}});
             w.write(GroupRecord{"/g", {}});
         }},
        {"root-group-twice",
         [](StreamWriter& w) {
             w.write(GroupRecord{"/", {number("a")}});
             w.write(GroupRecord{"/", {number("a")}});
         }},
        {"duplicate-attribute",
         [](StreamWriter& w) {
             w.write(GroupRecord{"/g", {number("a"), number("a")}});
         }},
        {"empty-attribute-name",
         [](StreamWriter& w) {
             w.write(GroupRecord{"/g", {number("")}});
         }},
        {"self-link",
         [](StreamWriter& w) {
             w.write(LinkRecord{"/l", LinkKind::soft, "/l", ""});
         }},
        {"link-over-tensor",
         [](StreamWriter& w) {
             w.write(tensor("/t"));
             w.write(LinkRecord{"/t", LinkKind::soft, "/x", ""});
         }},
        {"link-empty-target",
         [](StreamWriter& w) {
             w.write(LinkRecord{"/l", LinkKind::soft, "", ""});
         }},
        {"external-link-empty-file",
         [](StreamWriter& w) {
             w.write(LinkRecord{"/l", LinkKind::external, "/x", ""});
         }},
        {"long-path", [](StreamWriter& w) { w.write(tensor("/" + std::string(60000, 'p'))); }},
        {"nul-in-path", [](StreamWriter& w) { w.write(tensor(std::string("/a\0b", 4))); }},
        {"zero-sized-dims",
         [](StreamWriter& w) {
             w.write(tensor("/z", {0, 5, 0}));
         }},
        {"group-after-child",
         [](StreamWriter& w) {
             w.write(tensor("/g/t"));
             w.write(GroupRecord{"/g", {number("a")}});
         }},
        {"parent-is-link",
         [](StreamWriter& w) {
             w.write(LinkRecord{"/l", LinkKind::external, "/x", "other.h5"});
             w.write(tensor("/l/t"));
         }},
        {"group-under-external-link",
         [](StreamWriter& w) {
             w.write(LinkRecord{"/l", LinkKind::external, "/", "victim.h5"});
             w.write(GroupRecord{"/l/x", {}});
         }},
        {"dot-component", [](StreamWriter& w) { w.write(tensor("/./x")); }},
        {"deep-path",
         [](StreamWriter& w) {
             std::string path;
             for (int i = 0; i < 2000; ++i) path += "/a";
             for (int i = 0; i < 20; ++i) w.write(tensor(path + "/t" + std::to_string(i)));
         }},
        {"rank-32",
         [](StreamWriter& w) { w.write(tensor("/r", std::vector<std::uint64_t>(32, 1))); }},
    };
    for (const auto& [name, write] : cases) {
        const std::string path = (std::filesystem::path(argv[1]) / (name + ".gcs")).string();
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (!f) {
            std::perror(path.c_str());
            return 4;
        }
        FileSink sink(f, path);
        StreamWriter writer(sink);
        write(writer);
        writer.finish();
        if (std::fclose(f) != 0) return 4;
    }
    return 0;
}
