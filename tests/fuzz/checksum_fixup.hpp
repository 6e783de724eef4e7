#pragma once
// Every header and record carries an XXH3-64 checksum, so a mutated stream almost always dies
// at the first checksum check and the record parsers and codec decoders behind it never see
// fuzzed bytes. fuzz_stream's mutator therefore recomputes the checksums of whatever framing
// it can still follow (the reader itself is fuzzed unchanged: nothing is compiled out).
#include <xxhash.h>

#include <cstddef>
#include <cstdint>

namespace gcfuzz {

inline std::uint64_t load_le(const std::uint8_t* p, int n) {
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= std::uint64_t{p[i]} << (8 * i);
    return v;
}

inline void store_le64(std::uint8_t* p, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// Header: 24 fixed bytes, extension, checksum. Records: 12-byte frame, body, checksum.
inline void fix_checksums(std::uint8_t* data, std::size_t size) {
    if (size < 24) return;
    const std::uint64_t extension = load_le(data + 20, 4);
    if (extension > (1u << 16) || 24 + extension + 8 > size) return;
    const std::size_t covered = 24 + static_cast<std::size_t>(extension);
    store_le64(data + covered, XXH3_64bits(data, covered));
    std::size_t pos = covered + 8;
    while (pos + 12 <= size) {
        const std::uint64_t length = load_le(data + pos + 4, 8);
        const std::size_t left = size - pos - 12;
        if (length > left || left - length < 8) return;
        const std::size_t record = 12 + static_cast<std::size_t>(length);
        store_le64(data + pos + record, XXH3_64bits(data + pos, record));
        pos += record + 8;
    }
}

}  // namespace gcfuzz
