#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "format/checksum.hpp"
#include "format/record_body.hpp"
#include "format/record_layout.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/stream.hpp"
#include "gradcodec/version.hpp"

namespace gradcodec {
namespace {

// Body bytes of unknown-length sources are buffered as they arrive: the first step is small,
// each next one as large as what has arrived, none over kReadGrowth.
constexpr std::uint64_t kFirstReadStep = 64u << 10;
constexpr std::uint64_t kReadGrowth = 64u << 20;

[[noreturn]] void damaged(const std::string& where, const std::string& why) {
    fail(ErrorKind::damaged_stream, "damaged stream: " + where + ": " + why);
}

std::uint64_t load_le(const std::uint8_t* p, int n) {
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= std::uint64_t{p[i]} << (8 * i);
    return v;
}

void read_exact(ByteSource& source, std::span<std::uint8_t> out, const std::string& where) {
    const std::size_t got = source.read(out);
    if (got != out.size()) {
        damaged(where, "truncated: " + std::to_string(out.size() - got) + " of " +
                           std::to_string(out.size()) + " bytes missing");
    }
}

}  // namespace

ReadLimits default_read_limits() {
    ReadLimits limits;
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page_size > 0) {
        const std::uint64_t half =
            static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) / 2;
        limits.max_record_bytes = half;
        limits.max_elements = half / sizeof(float);
    }
    return limits;
}

std::uint64_t default_max_tensor_bytes() {
    // The memory this process may use: the machine's, or less under `ulimit -v` / `ulimit -d`,
    // where an allocation fails long before the machine runs short.
    std::uint64_t usable = UINT64_MAX;
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page_size > 0)
        usable = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
    for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
        rlimit limit{};
        if (getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
            usable = std::min<std::uint64_t>(usable, limit.rlim_cur);
    }
    constexpr std::uint64_t kMax = std::uint64_t{4} << 30;
    return std::min(kMax, usable / 4);
}

StreamReader::StreamReader(ByteSource& source, ReadLimits limits)
    : source_(source), limits_(limits) {
    std::vector<std::uint8_t> header(kHeaderFixedSize);
    const std::size_t got = source_.read(header);
    if (got < kMagic.size() || !std::equal(kMagic.begin(), kMagic.end(), header.begin())) {
        damaged("stream header", "not a gradcodec stream (wrong magic number)");
    }
    if (got != header.size()) damaged("stream header", "truncated");
    const auto major = static_cast<std::uint16_t>(load_le(&header[8], 2));
    minor_ = static_cast<std::uint16_t>(load_le(&header[10], 2));
    // The major comes before the checksum: a future major may lay its header out differently.
    if (major != kFormatMajor) {
        fail(ErrorKind::damaged_stream, "unsupported stream: format version " +
                                            std::to_string(major) + "." + std::to_string(minor_) +
                                            ", this reader understands " + format_version_string() +
                                            " (major " + std::to_string(kFormatMajor) + " only)");
    }
    const auto required = static_cast<std::uint32_t>(load_le(&header[12], 4));
    const auto extension = static_cast<std::uint32_t>(load_le(&header[20], 4));
    if (extension > kMaxHeaderExtension) damaged("stream header", "extension too long");
    header.resize(kHeaderFixedSize + extension + kChecksumSize);
    read_exact(source_, std::span(header).subspan(kHeaderFixedSize), "stream header");
    const std::size_t covered = kHeaderFixedSize + extension;
    if (checksum(std::span(header).first(covered)) != load_le(&header[covered], 8)) {
        damaged("stream header", "checksum mismatch");
    }
    bytes_read_ = header.size();
    if ((required & ~kKnownRequiredFlags) != 0) {
        fail(ErrorKind::damaged_stream, "unsupported stream: required flags 0x" +
                                            std::to_string(required) +
                                            " are unknown to this reader");
    }
}

std::vector<std::uint8_t> StreamReader::read_body(std::uint64_t length) {
    const std::string where = "record " + std::to_string(index_ + 1);
    if (length > limits_.max_record_bytes) {
        fail(ErrorKind::limit, where + " declares " + std::to_string(length) +
                                   " bytes, over the cap max_record_bytes=" +
                                   std::to_string(limits_.max_record_bytes));
    }
    std::vector<std::uint8_t> body;
    // Written so that a cap near 2^64 cannot make `length + checksum` wrap around.
    if (const auto left = source_.remaining()) {
        if (length > *left || *left - length < kChecksumSize) {
            damaged(where, "truncated: declares " + std::to_string(length) + " bytes, " +
                               std::to_string(*left) + " remain");
        }
        body.reserve(static_cast<std::size_t>(length));  // the bytes are there: one allocation
    }
    // On a pipe, grow only as bytes actually arrive: a short stream declaring a huge record
    // costs at most twice what it sent, plus the first step.
    while (body.size() < length) {
        const std::uint64_t have = body.size();
        const std::uint64_t step =
            std::min({length - have, std::max(have, kFirstReadStep), kReadGrowth});
        body.resize(static_cast<std::size_t>(have + step));
        read_exact(source_, std::span(body).subspan(have), where);
    }
    return body;
}

void StreamReader::expect_input_end() {
    if (!ended_) fail(ErrorKind::usage, "expect_input_end called before the end record");
    std::array<std::uint8_t, 1> extra{};
    if (source_.read(extra) != 0) {
        const auto more = source_.remaining();
        damaged("after the end record", std::to_string(more ? *more + 1 : 1) +
                                            (more ? "" : " or more") +
                                            " bytes follow the end record, which must be last");
    }
}

std::optional<Record> StreamReader::next() {
    // A loop, not recursion, over skipped records: a stream of millions of tiny skippable
    // records must not exhaust the stack.
    while (!ended_) {
        if (auto record = next_record()) return record;
    }
    return std::nullopt;
}

std::optional<Record> StreamReader::next_record() {
    const std::string where = "record " + std::to_string(index_ + 1);
    std::array<std::uint8_t, kRecordFrameSize> frame{};
    const std::size_t got = source_.read(frame);
    if (got == 0) damaged(where, "stream ends without an end marker (truncated)");
    if (got != frame.size()) damaged(where, "truncated record frame");
    const std::uint8_t kind = frame[0];
    const std::uint8_t flags = frame[1];
    const std::uint64_t length = load_le(&frame[4], 8);
    std::vector<std::uint8_t> body = read_body(length);
    std::array<std::uint8_t, kChecksumSize> sum{};
    read_exact(source_, sum, where);
    Checksum record_sum;
    record_sum.update(frame);
    record_sum.update(body);
    const std::uint64_t digest = record_sum.digest();
    std::string path = peek_path(body);
    if (path.size() > 1 && path[0] == '/') path.erase(0, 1);  // as users write it in --select
    const std::string named = where + (path.empty() || kind == kRecordEnd ? "" : " (" + path + ")");
    if (digest != load_le(sum.data(), 8)) damaged(named, "checksum mismatch");
    last_record_bytes_ = kRecordFrameSize + body.size() + kChecksumSize;
    bytes_read_ += last_record_bytes_;
    if ((flags & ~kRecordFlagSkippable) != 0 || frame[2] != 0 || frame[3] != 0) {
        damaged(named, "reserved frame bits are set");
    }
    ByteReader r(body, "damaged stream: " + named);
    switch (kind) {
        case kRecordEnd: {
            const std::uint64_t count = r.u64();
            r.expect_end();
            if (count != index_) {
                damaged(named, "end marker counts " + std::to_string(count) + " records, " +
                                   std::to_string(index_) + " were read");
            }
            ended_ = true;
            return std::nullopt;
        }
        case kRecordGroup:
            ++index_;
            return parse_group(r);
        case kRecordLink:
            ++index_;
            return parse_link(r);
        case kRecordTensor:
            ++index_;
            return parse_tensor(std::move(body), "damaged stream: " + named, limits_);
        case kRecordTyped:
            ++index_;
            return parse_typed(std::move(body), "damaged stream: " + named, limits_);
        default:
            if (flags & kRecordFlagSkippable) {
                ++index_;
                return std::nullopt;
            }
            damaged(named, "unknown record kind " + std::to_string(kind) +
                               " that is not marked skippable");
    }
}

}  // namespace gradcodec
