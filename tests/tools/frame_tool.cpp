// Makes and checks the golden and bad frames of samples/frames (scripts/make-golden-frames).
//   frame_tool encode SPEC RAW_F32_FILE OUT    one frame of the file's values, flat
//   frame_tool digest FRAME                    XXH3-64 of the decoded bytes
//   frame_tool reseal FRAME                    rewrite the checksum after a hand edit
//   frame_tool stream FRAME OUT                a stream of one tensor record "/t" holding the
//                                              frame's dtype, shape, codec id and payload, as
//                                              they are (tests/python builds hostile streams)
#include <xxhash.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "format/frame_layout.hpp"
#include "gradcodec/gradcodec.hpp"

namespace {

std::vector<std::uint8_t> read_file(const char* path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(std::string("cannot open ") + path);
    return {std::istreambuf_iterator<char>(in), {}};
}

void write_file(const char* path, const std::vector<std::uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error(std::string("cannot write ") + path);
}

}  // namespace

int main(int argc, char** argv) {
    using namespace gradcodec;
    try {
        const std::string mode = argc > 1 ? argv[1] : "";
        if (mode == "encode" && argc == 5) {
            const auto raw = read_file(argv[3]);
            const TensorMeta meta{"values", DType::f32, {raw.size() / 4}};
            write_file(argv[4], encode_frame(Codec::compile(std::string_view(argv[2])), meta,
                                             std::as_bytes(std::span(raw))));
            return 0;
        }
        if (mode == "digest" && argc == 3) {
            const auto frame = read_file(argv[2]);
            const FrameInfo info = read_frame_info(frame);
            std::vector<std::byte> values(info.element_count * dtype_size(info.dtype));
            decode_frame_into(frame, values);
            std::printf("%016llx\n",
                        static_cast<unsigned long long>(XXH3_64bits(values.data(), values.size())));
            return 0;
        }
        if (mode == "reseal" && argc == 3) {
            auto frame = read_file(argv[2]);
            seal_frame(frame);
            write_file(argv[2], frame);
            return 0;
        }
        if (mode == "stream" && argc == 4) {
            const auto frame = read_file(argv[2]);
            const FrameInfo info = read_frame_info(frame);
            const auto payload = std::span(frame).subspan(info.payload_offset, info.payload_size);
            VectorSink sink;
            StreamWriter writer(sink);
            writer.write(TensorRecord{"/t",
                                      info.dtype,
                                      info.shape,
                                      {},
                                      info.codec_id,
                                      std::string(codec_name(info.codec_id)),
                                      {payload.begin(), payload.end()}});
            writer.finish();
            write_file(argv[3], sink.bytes);
            return 0;
        }
        std::fprintf(stderr,
                     "usage: frame_tool encode SPEC RAW OUT | digest FRAME | "
                     "reseal FRAME | stream FRAME OUT\n");
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "frame_tool: %s\n", e.what());
        return 3;
    }
}
