// Writes streams that are valid byte for byte (checksums, sizes, end marker) but whose content
// is hostile to a consumer that builds an HDF5 file: odd or colliding paths, self links,
// duplicate attributes, objects under links. For tests/cli/hostile_streams.sh, which knows
// which of them must decode and which must be refused.
// usage: make_hostile_streams DIR              (writes DIR/<case>.gcs)
//        make_hostile_streams --mutants DIR N  (N typed records whose real type descriptions,
//                                               from samples/golden/typed-fixture.gcs, have
//                                               1 to 4 bytes changed at random, fixed seed)
//        make_hostile_streams --sparse-bomb FILE N P:V...
//              (one f32 tensor "/bomb" of N elements, V at each position P and zero elsewhere,
//               encoded by topk:count=<number of P:V>,values=f32 a piece at a time: a stream of
//               a few hundred bytes declaring N values, made without holding them)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
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

// HDF5 type descriptions (H5Tencode's bytes: 03 00, then a datatype message) built by hand.
using Bytes = std::vector<std::uint8_t>;
Bytes cat(std::initializer_list<Bytes> parts) {
    Bytes out;
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}
const Bytes kPrefix{3, 0};
const Bytes kInt32{0x10, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0};
const Bytes kUint8{0x10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 8, 0};
const Bytes kVlenString = cat({{0x19, 1, 1, 0, 8, 0, 0, 0}, kUint8});
const Bytes kSequenceHead{0x19, 0, 0, 0, 16, 0, 0, 0};  // followed by its base type

TypedRecord typed(const Bytes& type, std::vector<std::uint64_t> shape, Bytes data) {
    return TypedRecord{"/typed", std::move(shape), {}, type, std::move(data)};
}

Bytes nested_sequences(int depth) {
    Bytes out = kPrefix;
    for (int i = 0; i < depth; ++i)
        out.insert(out.end(), kSequenceHead.begin(), kSequenceHead.end());
    out.insert(out.end(), kInt32.begin(), kInt32.end());
    return out;
}

Bytes from_hex(const char* hex) {
    Bytes out;
    for (std::size_t i = 0; hex[i] && hex[i + 1]; i += 2)
        out.push_back(static_cast<std::uint8_t>(std::stoi(std::string(hex + i, 2), nullptr, 16)));
    return out;
}

// Type descriptions and data of typed-fixture.gcs: a compound with an array, a vlen string, a
// vlen sequence and a big-endian member; a sequence of version 1 compounds; an array of vlen
// strings; an enum.
struct Seed {
    const char* type;
    const char* data;
    std::uint64_t count;
};
const Seed kSeeds[] = {
    {"030026050000400000006964000000000000000000001008000008000000000040007879000000000000080000"
     "002a0000000800000001000000020000000000000011201f000400000000002000170800177f0000006e616d65"
     "000000001800000019010100080000001000000001000000000008007365710000000000200000001900000010"
     "000000100800000200000000001000626500000000000038000000100100000200000000001000",
     "01000000000000000000c03f0000204005000000616c706861020000000100020002010200000000000000000040"
     "400000804000000000000000000000fdffffffffffffff0000807f0000008002000000c3bc0700000000000100"
     "02000300040005000600ffff",
     3},
    {"0300190000001000000016020000090000006b00000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000001000000001000000000008007600000000000000010000000000000000"
     "000000000000000000000000000000000000000000000000000011203f000800000000004000340b0034ff0300"
     "00",
     "0200000001000000000000e03f02000000000000d0bf01000000ff000000000000f87f", 2},
    {"03002a000000100000000100000002000000000000001901010008000000100000000100000000000800",
     "040000003cca9a3b040000001eca9a3b040000006acb9a3b0100000003", 2},
    {"03001803000002000000100800000200000000001000424c554500000000475245454e00000052454400000000"
     "002a0001000000",
     "00002a0001002a00", 4},
};

int write_mutants(const std::string& dir, int count) {
    std::mt19937 random(20261203);
    for (int i = 0; i < count; ++i) {
        const Seed& seed = kSeeds[static_cast<std::size_t>(i) % std::size(kSeeds)];
        Bytes type = from_hex(seed.type);
        const int changes = 1 + static_cast<int>(random() % 4);
        for (int c = 0; c < changes; ++c) {
            auto& byte = type[random() % type.size()];
            byte = random() % 3 == 0 ? static_cast<std::uint8_t>(byte ^ (1u << (random() % 8)))
                                     : static_cast<std::uint8_t>(random());
        }
        const std::string path = dir + "/mutant-" + std::to_string(i) + ".gcs";
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (!f) return 4;
        FileSink sink(f, path);
        StreamWriter writer(sink);
        writer.write(TypedRecord{"/m", {seed.count}, {}, type, from_hex(seed.data)});
        writer.finish();
        if (std::fclose(f) != 0) return 4;
    }
    return 0;
}

// The tensor goes through the topk survey in pieces of 1 MiB elements from one buffer, so a
// tensor of 2^31 elements (8 GiB) costs a few seconds and 4 MiB.
int write_sparse_bomb(const std::string& path, std::uint64_t n,
                      const std::vector<std::pair<std::uint64_t, float>>& kept) {
    const TensorMeta meta{"/bomb", DType::f32, {n}};
    const Codec codec = Codec::compile("topk:count=" + std::to_string(kept.size()) + ",values=f32");
    constexpr std::uint64_t kPiece = std::uint64_t{1} << 20;
    std::vector<float> piece(kPiece, 0.0f);
    const auto for_each_piece = [&](const std::function<void(std::uint64_t, std::size_t)>& use) {
        for (std::uint64_t first = 0; first < n; first += kPiece) {
            const auto size = static_cast<std::size_t>(std::min(kPiece, n - first));
            for (const auto& [p, v] : kept)
                if (p >= first && p < first + size) piece[p - first] = v;
            use(first, size);
            for (const auto& [p, v] : kept)
                if (p >= first && p < first + size) piece[p - first] = 0.0f;
        }
    };
    PieceSurvey survey = codec.begin_survey(meta);
    for_each_piece([&](std::uint64_t, std::size_t size) {
        survey.add(std::as_bytes(std::span<const float>(piece).first(size)));
    });
    std::vector<std::uint8_t> payload(*codec.piecewise_size(meta, &survey));
    // The first piece carries the whole payload (Codec::encode_piece).
    const std::size_t written = codec.encode_piece(
        meta, 0, std::as_bytes(std::span<const float>(piece).first(1)), payload, &survey);
    payload.resize(written);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 4;
    FileSink sink(f, path);
    StreamWriter writer(sink);
    writer.write(TensorRecord{
        meta.name, DType::f32, meta.shape, {}, codec.id(), codec.spec(), std::move(payload)});
    writer.finish();
    return std::fclose(f) == 0 ? 0 : 4;
}

using Case = std::function<void(StreamWriter&)>;

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::string(argv[1]) == "--mutants")
        return write_mutants(argv[2], std::atoi(argv[3]));
    if (argc >= 5 && std::string(argv[1]) == "--sparse-bomb") {
        std::vector<std::pair<std::uint64_t, float>> kept;
        for (int i = 4; i < argc; ++i) {
            char* colon = nullptr;
            const std::uint64_t p = std::strtoull(argv[i], &colon, 10);
            if (*colon != ':') return 2;
            kept.emplace_back(p, std::strtof(colon + 1, nullptr));
        }
        return write_sparse_bomb(argv[2], std::strtoull(argv[3], nullptr, 10), kept);
    }
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
        {"typed-int",
         [](StreamWriter& w) {
             w.write(typed(cat({kPrefix, kInt32}), {2}, Bytes(8, 1)));
         }},
        {"typed-strings",
         [](StreamWriter& w) {
             w.write(typed(cat({kPrefix, kVlenString}), {2}, {2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0}));
         }},
        {"typed-large-sequence",
         [](StreamWriter& w) {
             Bytes data{0xa0, 0x86, 0x01, 0};  // 100000 elements
             data.resize(4 + 100000, 7);
             w.write(typed(cat({kPrefix, kSequenceHead, kUint8}), {1}, data));
         }},
        {"typed-truncated-type",
         [](StreamWriter& w) {
             w.write(typed(cat({kPrefix, Bytes(kInt32.begin(), kInt32.end() - 2)}), {2}, Bytes(8)));
         }},
        {"typed-bad-prefix",
         [](StreamWriter& w) {
             w.write(typed(cat({{4, 0}, kInt32}), {2}, Bytes(8)));
         }},
        {"typed-trailing-type-byte",
         [](StreamWriter& w) {
             w.write(typed(cat({kPrefix, kInt32, {0}}), {2}, Bytes(8)));
         }},
        {"typed-garbled-type",
         [](StreamWriter& w) {
             w.write(typed(cat({kPrefix, {0x1f, 0xff, 0xff, 0xff, 1, 0, 0, 0, 0xde, 0xad}}), {1},
                           Bytes(1)));
         }},
        {"typed-array-rank-200",
         [](StreamWriter& w) {
             w.write(typed(
                 cat({kPrefix, {0x2a, 0, 0, 0, 12, 0, 0, 0, 200, 0, 0, 0}, Bytes(1600), kInt32}),
                 {1}, Bytes(12)));
         }},
        {"typed-array-size-mismatch",
         [](StreamWriter& w) {
             w.write(typed(cat({kPrefix,
                                {0x2a, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0},
                                Bytes(4),
                                kInt32}),
                           {1}, Bytes(8)));
         }},
        {"typed-deep-nesting",
         [](StreamWriter& w) { w.write(typed(nested_sequences(40), {1}, Bytes(4))); }},
        {"typed-reference",
         [](StreamWriter& w) {
             w.write(typed(cat({kPrefix, {0x17, 0, 0, 0, 8, 0, 0, 0}}), {1}, Bytes(8)));
         }},
        {"typed-member-outside",
         [](StreamWriter& w) {
             w.write(typed(cat({kPrefix, {0x36, 1, 0, 0, 4, 0, 0, 0, 'a', 0, 2}, kInt32}), {1},
                           Bytes(4)));
         }},
        {"typed-short-data",
         [](StreamWriter& w) {
             w.write(typed(cat({kPrefix, kInt32}), {4}, Bytes(12)));
         }},
        {"typed-long-data",
         [](StreamWriter& w) {
             w.write(typed(cat({kPrefix, kInt32}), {2}, Bytes(9)));
         }},
        {"typed-nul-in-string",
         [](StreamWriter& w) {
             w.write(typed(cat({kPrefix, kVlenString}), {1}, {3, 0, 0, 0, 'a', 0, 'b'}));
         }},
        {"typed-huge-sequence",
         [](StreamWriter& w) {
             w.write(typed(cat({kPrefix, kSequenceHead, kInt32}), {1},
                           {0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4}));
         }},
        {"typed-huge-shape",
         [](StreamWriter& w) {
             w.write(typed(cat({kPrefix, kUint8}), {1ull << 40, 1ull << 20}, Bytes(1)));
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
