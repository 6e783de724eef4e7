#include <array>
#include <memory>
#include <string>
#include <vector>

#include "format/checksum.hpp"
#include "format/record_body.hpp"
#include "format/record_layout.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/stream.hpp"
#include "gradcodec/version.hpp"

namespace gradcodec {
namespace {

// Kind, flags, reserved, body length (FORMAT.md, "Records").
std::vector<std::uint8_t> record_frame(std::uint8_t kind, std::uint64_t body_size) {
    std::vector<std::uint8_t> frame;
    ByteWriter w(frame);
    w.u8(kind);
    w.u8(0);
    w.u16(0);
    w.u64(body_size);
    return frame;
}

void check_piece_fits(std::size_t piece, std::uint64_t left) {
    if (piece > left)
        fail(ErrorKind::usage, "payload piece of " + std::to_string(piece) +
                                   " bytes exceeds the record's declared size by " +
                                   std::to_string(piece - left));
}

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
    w.u64(checksum(header));
    sink_.write(header);
}

struct StreamWriter::OpenRecord {
    Checksum hash;
    std::uint8_t kind = 0;
    std::uint64_t left = 0;  // body bytes still to come
};

struct PreparedRecord::State {
    Checksum hash;
    std::vector<std::uint8_t> start;  // the frame and the tensor's head, already hashed
    std::uint64_t payload_size = 0;
    std::uint64_t left = 0;  // payload bytes still to be hashed
};

PreparedRecord::PreparedRecord(const TensorRecord& record, std::uint64_t payload_size)
    : state_(std::make_unique<State>()) {
    if (!record.payload.empty())
        fail(ErrorKind::usage, record.path +
                                   ": a prepared record's payload follows in pieces; the "
                                   "record must leave its own payload empty");
    const std::vector<std::uint8_t> head = tensor_head(record, payload_size);
    state_->start = record_frame(kRecordTensor, head.size() + payload_size);
    state_->start.insert(state_->start.end(), head.begin(), head.end());
    state_->hash.update(state_->start);
    state_->payload_size = payload_size;
    state_->left = payload_size;
}

void PreparedRecord::add_payload(std::span<const std::uint8_t> piece) {
    if (!state_) fail(ErrorKind::usage, "the prepared record was already written");
    check_piece_fits(piece.size(), state_->left);
    state_->hash.update(piece);
    state_->left -= piece.size();
}

std::uint64_t PreparedRecord::payload_size() const {
    return state_ ? state_->payload_size : 0;
}

PreparedRecord::PreparedRecord(PreparedRecord&&) noexcept = default;
PreparedRecord& PreparedRecord::operator=(PreparedRecord&&) noexcept = default;
PreparedRecord::~PreparedRecord() = default;

StreamWriter::~StreamWriter() = default;

void StreamWriter::check_writable() const {
    if (finished_) fail(ErrorKind::usage, "stream already finished");
    if (open_) fail(ErrorKind::usage, "a record's payload is still being written");
}

// Streams frame and body through one hash state, so a large payload is never copied.
void StreamWriter::open(std::uint8_t kind, std::uint64_t body_size,
                        std::span<const std::uint8_t> head) {
    check_writable();
    const std::vector<std::uint8_t> frame = record_frame(kind, body_size);
    auto record = std::make_unique<OpenRecord>();
    record->hash.update(frame);
    record->kind = kind;
    record->left = body_size;
    sink_.write(frame);
    open_ = std::move(record);
    append(head);
}

void StreamWriter::append(std::span<const std::uint8_t> bytes) {
    if (!open_) fail(ErrorKind::usage, "no record is open for its payload");
    check_piece_fits(bytes.size(), open_->left);
    open_->hash.update(bytes);
    sink_.write(bytes);
    open_->left -= bytes.size();
    if (open_->left == 0) close();
}

void StreamWriter::close() {
    sink_.write(little_endian64(open_->hash.digest()));
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

void StreamWriter::write(PreparedRecord&& record, std::span<const std::uint8_t> payload) {
    check_writable();
    const PreparedRecord::State* prepared = record.state_.get();
    if (!prepared) fail(ErrorKind::usage, "the prepared record was already written");
    if (prepared->left != 0 || payload.size() != prepared->payload_size)
        fail(ErrorKind::usage,
             "a prepared record of " + std::to_string(prepared->payload_size) + " payload bytes, " +
                 std::to_string(prepared->payload_size - prepared->left) +
                 " of them added, is written with " + std::to_string(payload.size()));
    sink_.write(prepared->start);
    sink_.write(payload);
    sink_.write(little_endian64(prepared->hash.digest()));
    ++records_;
    record.state_.reset();
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
