#pragma once
// Little-endian field writing and bounds-checked reading. Every read checks the bytes that
// remain first, so a declared size can never make the reader run past its buffer.
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gradcodec/error.hpp"

namespace gradcodec {

class ByteWriter {
  public:
    explicit ByteWriter(std::vector<std::uint8_t>& out) : out_(out) {}
    void u8(std::uint8_t v) { out_.push_back(v); }
    void u16(std::uint16_t v) { little_endian(v, 2); }
    void u32(std::uint32_t v) { little_endian(v, 4); }
    void u64(std::uint64_t v) { little_endian(v, 8); }
    void f32(float v);
    void f64(double v);
    void bytes(std::span<const std::uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
    void string(std::string_view s);  // u32 length, then the bytes
    std::size_t size() const { return out_.size(); }
    std::vector<std::uint8_t>& buffer() { return out_; }

  private:
    void little_endian(std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    std::vector<std::uint8_t>& out_;
};

class ByteReader {
  public:
    // `what` names the thing being read, for messages: "record 3 (fc.weight) payload".
    ByteReader(std::span<const std::uint8_t> bytes, std::string what)
        : bytes_(bytes), what_(std::move(what)) {}
    std::uint8_t u8() { return static_cast<std::uint8_t>(little_endian(1)); }
    std::uint16_t u16() { return static_cast<std::uint16_t>(little_endian(2)); }
    std::uint32_t u32() { return static_cast<std::uint32_t>(little_endian(4)); }
    std::uint64_t u64() { return little_endian(8); }
    float f32();
    double f64();
    std::span<const std::uint8_t> bytes(std::uint64_t n);
    std::string string(std::uint32_t max_length = 1u << 20);
    // Checks that `count` elements of `size` bytes can still be read, before allocating them.
    void require(std::uint64_t count, std::uint64_t size, std::string_view field);
    std::uint64_t remaining() const { return bytes_.size() - pos_; }
    std::uint64_t position() const { return pos_; }
    void expect_end();  // trailing bytes are damage, never ignored
    [[noreturn]] void damaged(std::string_view why) const;

  private:
    std::uint64_t little_endian(int n);
    std::span<const std::uint8_t> bytes_;
    std::size_t pos_ = 0;
    std::string what_;
};

}  // namespace gradcodec
