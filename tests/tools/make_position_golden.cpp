// Rewrites every sparse (codec 4) tensor of a stream with its position section in a forced
// coder, everything else byte for byte: golden streams for coders the encoder does not pick
// on its own (Elias-Fano, which it never writes). The input's sections must be stored, not
// zstd frames (encode with zstd=off).
//   usage: make_position_golden INPUT.gcs bitmap|rice|elias-fano|rice-blocks OUTPUT.gcs
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "codec/codec_def.hpp"
#include "common/byte_io.hpp"
#include "gradcodec/gradcodec.hpp"
#include "index/position_coder.hpp"

using namespace gradcodec;

namespace {

PositionCoder coder_named(const std::string& name) {
    if (name == "bitmap") return PositionCoder::bitmap;
    if (name == "rice") return PositionCoder::rice_gaps;
    if (name == "elias-fano") return PositionCoder::elias_fano;
    if (name == "rice-blocks") return PositionCoder::rice_blocks;
    fail(ErrorKind::usage, "unknown coder '" + name + "' (bitmap, rice, elias-fano, rice-blocks)");
}

// Header (32 bytes up to the position section), positions, then the value section as is.
std::vector<std::uint8_t> with_coder(PositionCoder coder, std::uint64_t n,
                                     std::span<const std::uint8_t> payload) {
    constexpr std::size_t kHeader = 24;
    if (payload.size() < kHeader + 8 || (payload[3] & 1) != 0)
        fail(ErrorKind::usage, "a sparse payload with a stored position section is needed");
    ByteReader r(payload.subspan(kHeader), "sparse payload");
    const std::uint64_t stored = r.u64();
    ByteReader section(r.bytes(stored), "position section");
    const std::vector<std::uint64_t> positions = decode_positions(section, n);
    std::vector<std::uint8_t> out(payload.begin(), payload.begin() + kHeader);
    ByteWriter w(out);
    std::vector<std::uint8_t> rewritten;
    ByteWriter pw(rewritten);
    encode_positions_with(coder, positions, n, pw);
    w.u64(rewritten.size());
    w.bytes(rewritten);
    const auto rest = r.bytes(r.remaining());
    w.bytes(rest);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: make_position_golden INPUT.gcs CODER OUTPUT.gcs\n");
        return 2;
    }
    try {
        const PositionCoder coder = coder_named(argv[2]);
        std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(argv[1], "rb"), &std::fclose);
        if (!in) fail(ErrorKind::io, std::string(argv[1]) + ": cannot open");
        std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(argv[3], "wbx"),
                                                            &std::fclose);
        if (!out) fail(ErrorKind::io, std::string(argv[3]) + ": cannot create (exists?)");
        FileSource source(in.get());
        StreamReader reader(source);
        FileSink sink(out.get(), argv[3]);
        StreamWriter writer(sink);
        while (auto record = reader.next()) {
            if (auto* t = std::get_if<TensorRecord>(&*record)) {
                if (t->codec_id == kCodecSparse) {
                    const TensorMeta meta{t->path, t->dtype, t->shape};
                    t->payload = with_coder(coder, meta.element_count(), t->payload);
                }
                writer.write(*t);
            } else if (const auto* g = std::get_if<GroupRecord>(&*record)) {
                writer.write(*g);
            } else {
                writer.write(std::get<LinkRecord>(*record));
            }
        }
        writer.finish();
        if (std::fflush(out.get()) != 0)
            fail(ErrorKind::io, std::string(argv[3]) + ": write failed");
    } catch (const Error& e) {
        std::fprintf(stderr, "make_position_golden: %s\n", e.what());
        return e.kind() == ErrorKind::usage ? 2 : e.kind() == ErrorKind::io ? 4 : 3;
    }
    return 0;
}
