#pragma once
// Bit-level writing and bounds-checked reading for the position coders. Bit i of a stream is
// bit (i mod 8) of byte i / 8 (least significant first); the last byte is zero-padded.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "common/scratch.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec {

// Keeps the bits not yet in whole bytes in a register and stores all eight of its bytes after
// every value, advancing by the bytes completed: no branch on word boundaries, and no load
// of what the last store wrote.
class BitWriter {
  public:
    // v < 2^bits, bits <= 64.
    void put(std::uint64_t v, unsigned bits) {
        if (bits > kMaxPut) {  // in two halves, each within the register's free bits
            put(v & 0xffffffffu, 32);
            put(v >> 32, bits - 32);
            return;
        }
        if (at_ + kSpare > bytes_.size()) grow();
        acc_ |= v << fill_;
        fill_ += bits;  // <= 7 + 56
        std::uint8_t* out = bytes_.data() + at_;
        if constexpr (std::endian::native == std::endian::little) {
            std::memcpy(out, &acc_, 8);
        } else {
            for (int b = 0; b < 8; ++b) out[b] = static_cast<std::uint8_t>(acc_ >> (8 * b));
        }
        const unsigned whole = fill_ / 8;  // <= 7
        at_ += whole;
        acc_ >>= 8 * whole;
        fill_ -= 8 * whole;
    }
    // The writer's state in a value of the caller's, which the compiler can keep in registers
    // through a loop (stores through the byte buffer could otherwise alias the writer's
    // members): open() makes room for `bytes` more, put_at() writes at most 56 bits, close()
    // hands the state back.
    struct Cursor {
        std::uint8_t* out;
        std::uint64_t acc;
        unsigned fill;
    };
    Cursor open(std::size_t bytes) {
        if (at_ + bytes + kSpare > bytes_.size())
            bytes_.resize(std::max<std::size_t>(2 * bytes_.size(), at_ + bytes + kSpare));
        return {bytes_.data() + at_, acc_, fill_};
    }
    static void put_at(Cursor& c, std::uint64_t v, unsigned bits) {
        c.acc |= v << c.fill;
        c.fill += bits;
        if constexpr (std::endian::native == std::endian::little) {
            std::memcpy(c.out, &c.acc, 8);
        } else {
            for (int b = 0; b < 8; ++b) c.out[b] = static_cast<std::uint8_t>(c.acc >> (8 * b));
        }
        const unsigned whole = c.fill / 8;
        c.out += whole;
        c.acc >>= 8 * whole;
        c.fill -= 8 * whole;
    }
    void close(const Cursor& c) {
        at_ = static_cast<std::size_t>(c.out - bytes_.data());
        acc_ = c.acc;
        fill_ = c.fill;
    }
    void zeros(std::uint64_t count) {
        while (count > 0) {
            const unsigned step = count > kMaxPut ? kMaxPut : static_cast<unsigned>(count);
            put(0, step);
            count -= step;
        }
    }
    // Room for `bytes` of output, when the caller knows the size: no regrowth on the way.
    void reserve(std::size_t bytes) {
        if (bytes + kSpare > bytes_.size()) bytes_.resize(bytes + kSpare);
    }
    std::uint64_t bit_count() const { return 8 * std::uint64_t{at_} + fill_; }
    ScratchVector<std::uint8_t> finish() {
        put(0, 0);  // stores the register's bits, if nothing has yet
        bytes_.resize(at_ + (fill_ + 7) / 8);
        at_ = 0;
        acc_ = 0;
        fill_ = 0;
        return std::move(bytes_);
    }

  private:
    static constexpr unsigned kMaxPut = 56;    // with up to 7 bits pending, fits 64
    static constexpr std::size_t kSpare = 16;  // bytes from at_ that a store may touch
    void grow() { bytes_.resize(std::max<std::size_t>(2 * bytes_.size(), at_ + kSpare + 64)); }
    ScratchVector<std::uint8_t> bytes_;
    std::size_t at_ = 0;  // bytes complete
    std::uint64_t acc_ = 0;
    unsigned fill_ = 0;  // bits pending in acc_, < 8 between calls
};

class BitReader {
  public:
    // `what` must outlive the reader.
    BitReader(std::span<const std::uint8_t> data, std::string_view what, std::uint64_t start = 0)
        : data_(data), total_(8 * std::uint64_t{data.size()}), pos_(start), what_(what) {}

    std::uint64_t position() const { return pos_; }
    std::uint64_t remaining() const { return total_ - pos_; }
    void seek(std::uint64_t bit) { pos_ = bit; }

    // bits <= 56.
    std::uint64_t get(unsigned bits) {
        if (bits > remaining()) damaged("a code runs past the end of its section");
        const std::uint64_t v = peek() & mask(bits);
        pos_ += bits;
        return v;
    }
    // Zero bits up to and including the next one bit: returns how many zeros. Fails rather
    // than run past the end, or past `limit` zeros.
    std::uint64_t unary(std::uint64_t limit) {
        std::uint64_t zeros = 0;
        for (;;) {
            const std::uint64_t avail = remaining() < 56 ? remaining() : 56;
            if (avail == 0) damaged("a unary code runs past the end of its section");
            const std::uint64_t w = peek() & mask(static_cast<unsigned>(avail));
            if (w != 0) {
                const auto tz = static_cast<unsigned>(std::countr_zero(w));
                zeros += tz;
                pos_ += tz + 1;
                if (zeros > limit) damaged("a gap exceeds the tensor");
                return zeros;
            }
            zeros += avail;
            pos_ += avail;
            if (zeros > limit) damaged("a gap exceeds the tensor");
        }
    }
    // One Rice code (unary quotient, then r low bits) from a single window when it fits; false
    // when the code is longer or near the end, and the caller takes the checked slow path.
    bool try_rice(unsigned r, std::uint64_t& q, std::uint64_t& low) {
        if (remaining() < 57) return false;
        const std::uint64_t w = peek();
        if (w == 0) return false;
        const auto tz = static_cast<unsigned>(std::countr_zero(w));
        if (tz + 1 + r > 56) return false;
        q = tz;
        low = (w >> (tz + 1)) & mask(r);
        pos_ += tz + 1 + r;
        return true;
    }
    // The bits from the current position to the end are all zero (canonical padding).
    bool rest_is_zero() const {
        std::uint64_t p = pos_;
        while (p < total_) {
            const std::uint64_t n = total_ - p < 56 ? total_ - p : 56;
            if ((peek_at(p) & mask(static_cast<unsigned>(n))) != 0) return false;
            p += n;
        }
        return true;
    }
    [[noreturn]] void damaged(const std::string& why) const {
        fail(ErrorKind::damaged_stream, std::string(what_) + ": " + why);
    }

  private:
    static std::uint64_t mask(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }
    std::uint64_t peek() const { return peek_at(pos_); }
    // 57 or more valid bits from bit `p` (zeros past the end).
    std::uint64_t peek_at(std::uint64_t p) const {
        const std::size_t byte = p >> 3;
        std::uint64_t w = 0;
        if (byte + 8 <= data_.size()) {
            if constexpr (std::endian::native == std::endian::little) {
                std::memcpy(&w, data_.data() + byte, 8);
            } else {
                for (int i = 0; i < 8; ++i) w |= std::uint64_t{data_[byte + i]} << (8 * i);
            }
        } else {
            for (std::size_t i = byte; i < data_.size(); ++i)
                w |= std::uint64_t{data_[i]} << (8 * (i - byte));
        }
        return w >> (p & 7);
    }
    std::span<const std::uint8_t> data_;
    std::uint64_t total_;
    std::uint64_t pos_;
    std::string_view what_;
};

}  // namespace gradcodec
