#include <xxhash.h>

#include <memory>

#include "format/record_body.hpp"
#include "format/record_layout.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/stream.hpp"
#include "gradcodec/version.hpp"

namespace gradcodec {
namespace {

struct HashDeleter {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
};

std::array<std::uint8_t, 8> little_endian64(std::uint64_t v) {
    std::array<std::uint8_t, 8> b{};
    for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(v >> (8 * i));
    return b;
}

}  // namespace

StreamWriter::StreamWriter(ByteSink& sink) : sink_(sink) {
    std::vector<std::uint8_t> header(kMagic.begin(), kMagic.end());
    ByteWriter w(header);
    w.u16(kFormatMajor);
    w.u16(kFormatMinor);
    w.u32(0);  // required flags
    w.u32(0);  // optional flags
    w.u32(0);  // header extension length
    w.u64(XXH3_64bits(header.data(), header.size()));
    sink_.write(header);
}

// Streams frame, head and tail through one hash state so a large payload is never copied.
void StreamWriter::emit(std::uint8_t kind, std::span<const std::uint8_t> head,
                        std::span<const std::uint8_t> tail) {
    if (finished_) fail(ErrorKind::usage, "stream already finished");
    std::vector<std::uint8_t> frame;
    ByteWriter w(frame);
    w.u8(kind);
    w.u8(0);
    w.u16(0);
    w.u64(head.size() + tail.size());
    std::unique_ptr<XXH3_state_t, HashDeleter> state(XXH3_createState());
    XXH3_64bits_reset(state.get());
    XXH3_64bits_update(state.get(), frame.data(), frame.size());
    XXH3_64bits_update(state.get(), head.data(), head.size());
    XXH3_64bits_update(state.get(), tail.data(), tail.size());
    sink_.write(frame);
    sink_.write(head);
    sink_.write(tail);
    sink_.write(little_endian64(XXH3_64bits_digest(state.get())));
    if (kind != kRecordEnd) ++records_;
}

void StreamWriter::write(const GroupRecord& record) {
    emit(kRecordGroup, group_body(record), {});
}
void StreamWriter::write(const LinkRecord& record) {
    emit(kRecordLink, link_body(record), {});
}
void StreamWriter::write(const TensorRecord& record) {
    emit(kRecordTensor, tensor_head(record, record.payload.size()), record.payload);
}

void StreamWriter::write(const TensorRecord& record, std::span<const std::uint8_t> payload) {
    if (!record.payload.empty())
        fail(ErrorKind::usage, record.path +
                                   ": a record written with a separate payload must "
                                   "leave its own payload empty");
    emit(kRecordTensor, tensor_head(record, payload.size()), payload);
}

void StreamWriter::write(const TypedRecord& record) {
    emit(kRecordTyped, typed_head(record), record.data);
}

void StreamWriter::finish() {
    emit(kRecordEnd, little_endian64(records_), {});
    finished_ = true;
}

}  // namespace gradcodec
