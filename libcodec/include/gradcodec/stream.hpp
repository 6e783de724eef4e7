#pragma once
// The container: a stream header, one checksummed record per object, an end marker
// (format-spec/FORMAT.md). The writer never seeks; the reader never needs the end to start.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "gradcodec/dtype.hpp"

// Everything declared here is the shared library's API; the rest of it stays hidden.
#pragma GCC visibility push(default)
namespace gradcodec {

// ---- the objects a dump is made of -------------------------------------------------------

enum class AttrKind : std::uint8_t { numeric = 0, fixed_string = 1, vlen_string = 2 };

// An HDF5 attribute, carried so decode can rebuild it exactly. Strings keep HDF5's
// character set and padding so h5diff sees the same type.
struct Attribute {
    std::string name;
    AttrKind kind = AttrKind::numeric;
    DType dtype = DType::f64;       // numeric only
    std::uint32_t string_size = 0;  // fixed_string only: bytes per element
    std::uint8_t cset = 0;          // strings: 0 = ASCII, 1 = UTF-8
    std::uint8_t strpad = 0;  // strings: 0 = null-terminated, 1 = null-padded, 2 = space-padded
    std::vector<std::uint64_t> shape;  // empty = scalar
    // numeric: little-endian elements; fixed_string: string_size bytes per element;
    // vlen_string: the elements as (u32 length, bytes) pairs.
    std::vector<std::uint8_t> data;
};

struct GroupRecord {
    std::string path;  // "/" or "/step_00010"
    std::vector<Attribute> attributes;
};

struct TensorRecord {
    std::string path;  // "/step_00010/fc.weight"
    DType dtype = DType::f32;
    std::vector<std::uint64_t> shape;
    std::vector<Attribute> attributes;
    std::uint16_t codec_id = 0;
    std::string codec_spec;
    std::vector<std::uint8_t> payload;
};

enum class LinkKind : std::uint8_t { soft = 0, external = 1 };

struct LinkRecord {
    std::string path;
    LinkKind kind = LinkKind::soft;
    std::string target;       // object path the link points to
    std::string target_file;  // external links only
};

// A dataset whose element type the tensor dtypes do not cover (strings, compound, enum, array,
// opaque and variable-length types, numbers of unusual layout), carried losslessly as a type
// description and the serialised elements (FORMAT.md 2.2, "Typed dataset record"). The library
// checks only the framing; it never interprets `type` or `data`. gradcodec's CLI fills `type`
// with HDF5's H5Tencode bytes and `data` with the elements in the format's layout.
struct TypedRecord {
    std::string path;
    std::vector<std::uint64_t> shape;  // empty = scalar
    std::vector<Attribute> attributes;
    std::vector<std::uint8_t> type;  // 1 to 65536 bytes
    std::vector<std::uint8_t> data;
};

using Record = std::variant<GroupRecord, TensorRecord, LinkRecord, TypedRecord>;

// ---- byte transport ------------------------------------------------------------------------

// Where stream bytes go. Small on purpose: a file, a socket or a memory buffer.
class ByteSink {
  public:
    virtual ~ByteSink() = default;
    virtual void write(std::span<const std::uint8_t> bytes) = 0;
};

class ByteSource {
  public:
    virtual ~ByteSource() = default;
    // Reads up to out.size() bytes; returns fewer only at the end of the input.
    virtual std::size_t read(std::span<std::uint8_t> out) = 0;
    // Bytes left when the source knows it (a regular file, a buffer); nullopt for a pipe.
    virtual std::optional<std::uint64_t> remaining() const = 0;
};

class VectorSink final : public ByteSink {
  public:
    void write(std::span<const std::uint8_t> bytes) override;
    std::vector<std::uint8_t> bytes;
};

class SpanSource final : public ByteSource {
  public:
    explicit SpanSource(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
    std::size_t read(std::span<std::uint8_t> out) override;
    std::optional<std::uint64_t> remaining() const override { return bytes_.size() - pos_; }

  private:
    std::span<const std::uint8_t> bytes_;
    std::size_t pos_ = 0;
};

// A stdio stream; `remaining` is known when it is a regular file. `name` (a path, "-")
// starts the message of an Error(io), so "File too large" says which file.
class FileSink final : public ByteSink {
  public:
    explicit FileSink(std::FILE* file, std::string name = {})
        : file_(file), name_(std::move(name)) {}
    void write(std::span<const std::uint8_t> bytes) override;

  private:
    std::FILE* file_;
    std::string name_;
};

class FileSource final : public ByteSource {
  public:
    explicit FileSource(std::FILE* file, std::string name = {});
    std::size_t read(std::span<std::uint8_t> out) override;
    std::optional<std::uint64_t> remaining() const override;

  private:
    std::FILE* file_;
    std::string name_;
    std::optional<std::uint64_t> size_;
    std::uint64_t pos_ = 0;
};

// ---- writer and reader ---------------------------------------------------------------------

// A tensor record laid out and checksummed ahead of the StreamWriter, on any thread. The thread
// that encodes a payload hashes it as it goes, each piece while it is still in the CPU's
// cache; StreamWriter::write then writes the record without reading the payload again, which
// for a whole dump was a pass over memory on the one thread that writes. The bytes written are
// those of StreamWriter::write(record, payload).
class PreparedRecord {
  public:
    // record.payload must be empty: a payload of `payload_size` bytes follows through
    // add_payload.
    PreparedRecord(const TensorRecord& record, std::uint64_t payload_size);
    // Throws Error(usage) beyond the declared size.
    void add_payload(std::span<const std::uint8_t> piece);
    std::uint64_t payload_size() const;

    PreparedRecord(PreparedRecord&&) noexcept;
    PreparedRecord& operator=(PreparedRecord&&) noexcept;
    ~PreparedRecord();

  private:
    friend class StreamWriter;
    struct State;
    std::unique_ptr<State> state_;
};

class StreamWriter {
  public:
    explicit StreamWriter(ByteSink& sink);  // writes the stream header at once
    void write(const GroupRecord& record);
    void write(const TensorRecord& record);
    // The same record with `payload` as its payload, written from the caller's buffer (for
    // Codec::encode_into into a reused one); record.payload must be empty. The bytes are
    // those of write(record) with the payload moved in.
    void write(const TensorRecord& record, std::span<const std::uint8_t> payload);
    // The same record with a payload of `payload_size` bytes that follows in pieces through
    // add_payload, for a payload encoded piece by piece (Codec::encode_piece) from a tensor
    // too large to hold twice; record.payload must be empty. The bytes are those of
    // write(record, payload). Until the last payload byte has arrived, every other write and
    // finish() throw Error(usage), so an abandoned record never ends a valid stream.
    void begin(const TensorRecord& record, std::uint64_t payload_size);
    // Throws Error(usage) beyond the size begin() declared.
    void add_payload(std::span<const std::uint8_t> piece);
    // A prepared record with its payload, which MUST be the bytes given to its add_payload, in
    // order: the writer does not read them to check, and other bytes would make a record whose
    // checksum fails when it is read. Throws Error(usage), writing nothing, unless all the
    // declared bytes were added and `payload` has that size.
    void write(PreparedRecord&& record, std::span<const std::uint8_t> payload);
    void write(const LinkRecord& record);
    void write(const TypedRecord& record);
    void finish();  // the end marker; a stream without it is truncated
    std::uint64_t records_written() const { return records_; }

    StreamWriter(const StreamWriter&) = delete;
    StreamWriter& operator=(const StreamWriter&) = delete;
    ~StreamWriter();

  private:
    struct OpenRecord;  // a record whose body is still being written, with its running hash
    void check_writable() const;
    void emit(std::uint8_t kind, std::span<const std::uint8_t> head,
              std::span<const std::uint8_t> tail);
    void open(std::uint8_t kind, std::uint64_t body_size, std::span<const std::uint8_t> head);
    void append(std::span<const std::uint8_t> bytes);
    void close();
    ByteSink& sink_;
    std::unique_ptr<OpenRecord> open_;
    std::uint64_t records_ = 0;
    bool finished_ = false;
};

struct ReadLimits {
    std::uint64_t max_elements = 1ull << 32;      // per tensor, after decoding
    std::uint64_t max_record_bytes = 1ull << 34;  // per record, as declared
};

// Default caps from this machine's memory: a stream cannot ask for more than half of it.
ReadLimits default_read_limits();

// The default caps on the bytes of decoded values a reader allocates, checked against what a
// frame's or a record's header declares before anything is allocated; exceeding one is
// Error(limit). gradcodec's CLI (--max-tensor-bytes, --max-total-bytes) and Python package
// (max_tensor_bytes=, max_total_bytes=) both default to these.
// Per tensor: a quarter of the memory this process may use (the machine's, or its address-space
// or data-segment limit when lower), at most 4 GiB.
std::uint64_t default_max_tensor_bytes();
// In total, over every tensor one decode writes: 16 GiB.
inline constexpr std::uint64_t kDefaultMaxTotalBytes = std::uint64_t{16} << 30;

class StreamReader {
  public:
    // Reads and checks the stream header; throws Error(damaged_stream) on a bad one.
    StreamReader(ByteSource& source, ReadLimits limits = default_read_limits());
    // The next record, or nullopt after the end marker. Every error names the record.
    std::optional<Record> next();
    // After next() returned nullopt, for callers whose input is exactly one stream: throws
    // Error(damaged_stream) when bytes follow the end record (it MUST be the last record).
    // On a pipe this waits for the writer to close it.
    void expect_input_end();
    std::uint16_t minor_version() const { return minor_; }
    std::uint64_t record_index() const { return index_; }  // records returned so far
    std::uint64_t last_record_bytes() const { return last_record_bytes_; }  // frame to checksum
    std::uint64_t bytes_read() const { return bytes_read_; }  // header and records so far

  private:
    std::optional<Record> next_record();  // nullopt after the end marker or a skipped record
    std::vector<std::uint8_t> read_body(std::uint64_t length);
    ByteSource& source_;
    ReadLimits limits_;
    std::uint16_t minor_ = 0;
    std::uint64_t index_ = 0;
    std::uint64_t last_record_bytes_ = 0;
    std::uint64_t bytes_read_ = 0;
    bool ended_ = false;
};

}  // namespace gradcodec
#pragma GCC visibility pop
