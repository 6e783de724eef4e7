#pragma once
// Little-endian field writing and bounds-checked reading. Every read checks the bytes that
// remain first, so a declared size can never make the reader run past its buffer.
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/scratch.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec {

// Where an encoder writes: a vector that grows, or a caller's buffer of fixed size
// (Codec::encode_into), so that a payload is written once, in place, with no copy.
class ByteOutput {
  public:
    explicit ByteOutput(std::vector<std::uint8_t>& grow) : grow_(&grow), size_(grow.size()) {}
    // A working buffer that grows, its memory reused across calls (common/scratch.hpp).
    explicit ByteOutput(ScratchVector<std::uint8_t>& grow) : scratch_(&grow), size_(grow.size()) {}
    // `what` names the tensor for the message when the buffer is too small; it must outlive
    // the sink.
    ByteOutput(std::span<std::uint8_t> fixed, std::string_view what) : fixed_(fixed), what_(what) {}
    ByteOutput(const ByteOutput&) = delete;
    ByteOutput& operator=(const ByteOutput&) = delete;

    // `n` more bytes at the end, to be filled by the caller. The pointer stays valid until the
    // next extend. Throws Error(limit) when a fixed buffer cannot hold them.
    std::uint8_t* extend(std::size_t n) {
        const std::size_t at = size_;
        if (grow_) {
            grow_to(at + n);
        } else if (scratch_) {
            scratch_grow_to(at + n);
        } else if (n > fixed_.size() - at) {
            fail_full(at + n);
        }
        size_ = at + n;
        return data() + at;
    }
    // Room for `n` more bytes without moving what is written: a writer that knows its bound
    // asks once, so a large payload is never copied by a later small extend.
    void reserve(std::size_t n) {
        if (grow_) reserve_capacity(size_ + n);
        if (scratch_) scratch_->reserve(size_ + n);
    }
    void shrink_to(std::size_t size) {
        size_ = size;
        if (grow_) grow_->resize(size);
        if (scratch_) scratch_->resize(size);
    }
    std::size_t size() const { return size_; }
    std::uint8_t* data() {
        return grow_ ? grow_->data() : scratch_ ? scratch_->data() : fixed_.data();
    }

  private:
    void grow_to(std::size_t size);
    void reserve_capacity(std::size_t capacity);
    void scratch_grow_to(std::size_t size);
    [[noreturn]] void fail_full(std::size_t needed) const;
    std::vector<std::uint8_t>* grow_ = nullptr;
    ScratchVector<std::uint8_t>* scratch_ = nullptr;
    std::span<std::uint8_t> fixed_;
    std::string_view what_;
    std::size_t size_ = 0;
};

// The bytes `write(ByteOutput&)` appends, in a vector of their own.
template <class Write>
std::vector<std::uint8_t> written_bytes(Write&& write) {
    std::vector<std::uint8_t> bytes;
    ByteOutput sink(bytes);
    write(sink);
    return bytes;
}

class ByteWriter {
  public:
    explicit ByteWriter(ByteOutput& out) : out_(&out) {}
    explicit ByteWriter(std::vector<std::uint8_t>& out) : own_(out), out_(&own_.value()) {}
    explicit ByteWriter(ScratchVector<std::uint8_t>& out) : own_(out), out_(&own_.value()) {}
    ByteWriter(const ByteWriter&) = delete;
    ByteWriter& operator=(const ByteWriter&) = delete;
    void u8(std::uint8_t v) { *out_->extend(1) = v; }
    void u16(std::uint16_t v) { little_endian(v, 2); }
    void u32(std::uint32_t v) { little_endian(v, 4); }
    void u64(std::uint64_t v) { little_endian(v, 8); }
    void f32(float v);
    void f64(double v);
    void bytes(std::span<const std::uint8_t> b) {
        if (!b.empty()) std::memcpy(out_->extend(b.size()), b.data(), b.size());
    }
    void string(std::string_view s);  // u32 length, then the bytes
    std::size_t size() const { return out_->size(); }
    ByteOutput& sink() { return *out_; }

  private:
    void little_endian(std::uint64_t v, int n) {
        std::uint8_t* p = out_->extend(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
    }
    std::optional<ByteOutput> own_;
    ByteOutput* out_;
};

class ByteReader {
  public:
    // `what` names the thing being read, for messages: "record 3 (fc.weight) payload".
    ByteReader(std::span<const std::uint8_t> bytes, std::string what)
        : bytes_(bytes), what_(std::move(what)) {}
    // The same naming "<tensor>: <part>", without building the string unless a read fails
    // (decoding into a caller's buffer allocates nothing). Both views must outlive the reader.
    ByteReader(std::span<const std::uint8_t> bytes, std::string_view tensor, std::string_view part)
        : bytes_(bytes), tensor_(tensor), part_(part) {}
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
    std::string what() const;
    std::size_t pos_ = 0;
    std::string what_;
    std::string_view tensor_, part_;
};

}  // namespace gradcodec
