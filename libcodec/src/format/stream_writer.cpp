#include <xxhash.h>

#include <array>
#include <memory>
#include <new>
#include <string>

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

struct StreamWriter::OpenRecord {
    std::unique_ptr<XXH3_state_t, HashDeleter> hash{XXH3_createState()};
    std::uint8_t kind = 0;
    std::uint64_t left = 0;  // body bytes still to come
};

StreamWriter::~StreamWriter() = default;

// Streams frame and body through one hash state, so a large payload is never copied.
void StreamWriter::open(std::uint8_t kind, std::uint64_t body_size,
                        std::span<const std::uint8_t> head) {
    if (finished_) fail(ErrorKind::usage, "stream already finished");
    if (open_) fail(ErrorKind::usage, "a record's payload is still being written");
    std::vector<std::uint8_t> frame;
    ByteWriter w(frame);
    w.u8(kind);
    w.u8(0);
    w.u16(0);
    w.u64(body_size);
    auto record = std::make_unique<OpenRecord>();
    if (!record->hash) throw std::bad_alloc();
    XXH3_64bits_reset(record->hash.get());
    XXH3_64bits_update(record->hash.get(), frame.data(), frame.size());
    record->kind = kind;
    record->left = body_size;
    sink_.write(frame);
    open_ = std::move(record);
    append(head);
}

void StreamWriter::append(std::span<const std::uint8_t> bytes) {
    if (!open_) fail(ErrorKind::usage, "no record is open for its payload");
    if (bytes.size() > open_->left)
        fail(ErrorKind::usage, "payload piece of " + std::to_string(bytes.size()) +
                                   " bytes exceeds the record's declared size by " +
                                   std::to_string(bytes.size() - open_->left));
    XXH3_64bits_update(open_->hash.get(), bytes.data(), bytes.size());
    sink_.write(bytes);
    open_->left -= bytes.size();
    if (open_->left == 0) close();
}

void StreamWriter::close() {
    sink_.write(little_endian64(XXH3_64bits_digest(open_->hash.get())));
    if (open_->kind != kRecordEnd) ++records_;
    open_.reset();
}

void StreamWriter::emit(std::uint8_t kind, std::span<const std::uint8_t> head,
                        std::span<const std::uint8_t> tail) {
    open(kind, head.size() + tail.size(), head);
    if (open_) append(tail);
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

void StreamWriter::begin(const TensorRecord& record, std::uint64_t payload_size) {
    if (!record.payload.empty())
        fail(ErrorKind::usage, record.path +
                                   ": a record whose payload follows in pieces must leave its "
                                   "own payload empty");
    const std::vector<std::uint8_t> head = tensor_head(record, payload_size);
    open(kRecordTensor, head.size() + payload_size, head);
}

void StreamWriter::add_payload(std::span<const std::uint8_t> piece) {
    append(piece);
}

void StreamWriter::write(const TypedRecord& record) {
    emit(kRecordTyped, typed_head(record), record.data);
}

void StreamWriter::finish() {
    const std::array<std::uint8_t, 8> count = little_endian64(records_);
    emit(kRecordEnd, count, {});
    finished_ = true;
}

}  // namespace gradcodec
