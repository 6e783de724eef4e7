#pragma once
// Hand-made stream bytes for tests that need what StreamWriter never writes: lying lengths,
// huge counts, unknown record kinds. Records get valid checksums, so the reader's size checks
// (not its checksum check) are what refuses them.
#include <xxhash.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gradcodec/stream.hpp"

namespace gctest {

inline void put_le(std::vector<std::uint8_t>& out, std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

inline void put_string(std::vector<std::uint8_t>& out, const std::string& s) {
    put_le(out, s.size(), 4);
    out.insert(out.end(), s.begin(), s.end());
}

// Every record of a stream, which must end where its input ends.
inline std::vector<gradcodec::Record> read_all(
    std::span<const std::uint8_t> bytes,
    gradcodec::ReadLimits limits = gradcodec::default_read_limits()) {
    gradcodec::SpanSource source(bytes);
    gradcodec::StreamReader reader(source, limits);
    std::vector<gradcodec::Record> out;
    while (auto r = reader.next()) out.push_back(std::move(*r));
    reader.expect_input_end();
    return out;
}

inline std::vector<std::uint8_t> stream_header() {
    gradcodec::VectorSink sink;
    gradcodec::StreamWriter writer(sink);
    return sink.bytes;
}

// Appends frame (kind, flags, reserved, length), body and checksum. `declared` replaces the
// frame's body length when given; the checksum then covers the lying frame.
inline void append_record(std::vector<std::uint8_t>& out, std::uint8_t kind,
                          std::span<const std::uint8_t> body, std::uint8_t flags = 0,
                          std::optional<std::uint64_t> declared = std::nullopt) {
    std::vector<std::uint8_t> record{kind, flags, 0, 0};
    put_le(record, declared.value_or(body.size()), 8);
    record.insert(record.end(), body.begin(), body.end());
    const std::uint64_t sum = XXH3_64bits(record.data(), record.size());
    put_le(record, sum, 8);
    out.insert(out.end(), record.begin(), record.end());
}

inline void append_end(std::vector<std::uint8_t>& out, std::uint64_t records) {
    std::vector<std::uint8_t> body;
    put_le(body, records, 8);
    append_record(out, 0xFF, body);
}

}  // namespace gctest
