#include "support/record_bytes.hpp"

namespace gradcodec::cli {

std::uint64_t record_bytes(const TensorRecord& record) {
    VectorSink sink;
    StreamWriter writer(sink);
    const std::uint64_t header = sink.bytes.size();
    writer.write(record);
    return sink.bytes.size() - header;
}

std::uint64_t stream_framing_bytes() {
    VectorSink sink;
    StreamWriter writer(sink);
    writer.finish();
    return sink.bytes.size();
}

}  // namespace gradcodec::cli
