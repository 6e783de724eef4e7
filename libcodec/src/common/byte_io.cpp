#include "common/byte_io.hpp"

#include <algorithm>
#include <bit>

#include "common/huge_pages.hpp"

namespace gradcodec {

void ByteOutput::grow_to(std::size_t size) {
    // Geometric growth keeps byte-at-a-time writers linear.
    if (size > grow_->capacity()) reserve_capacity(std::max(size, 2 * grow_->capacity()));
    grow_->resize(size);
}

// The new pages are advised before they are first touched.
void ByteOutput::reserve_capacity(std::size_t capacity) {
    if (capacity <= grow_->capacity()) return;
    grow_->reserve(capacity);
    advise_huge_pages(grow_->data() + grow_->size(), capacity - grow_->size());
}

// The same growth for a scratch buffer, without page advice: its blocks are reused, so their
// pages are mostly touched already.
void ByteOutput::scratch_grow_to(std::size_t size) {
    if (size > scratch_->capacity()) scratch_->reserve(std::max(size, 2 * scratch_->capacity()));
    scratch_->resize(size);
}

void ByteOutput::fail_full(std::size_t needed) const {
    fail(ErrorKind::limit, std::string(what_) + ": the payload needs more than " +
                               std::to_string(needed - 1) + " bytes, the buffer holds " +
                               std::to_string(fixed_.size()) +
                               " (max_encoded_size gives a size that always suffices)");
}

void ByteWriter::f32(float v) {
    u32(std::bit_cast<std::uint32_t>(v));
}
void ByteWriter::f64(double v) {
    u64(std::bit_cast<std::uint64_t>(v));
}

void ByteWriter::string(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    bytes({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
}

float ByteReader::f32() {
    return std::bit_cast<float>(u32());
}
double ByteReader::f64() {
    return std::bit_cast<double>(u64());
}

std::string ByteReader::what() const {
    if (tensor_.empty() && part_.empty()) return what_;
    return std::string(tensor_) + ": " + std::string(part_);
}

void ByteReader::damaged(std::string_view why) const {
    fail(ErrorKind::damaged_stream, what() + ": " + std::string(why));
}

void ByteReader::require(std::uint64_t count, std::uint64_t size, std::string_view field) {
    if (size != 0 && count > remaining() / size) {
        damaged(std::string(field) + " declares " + std::to_string(count) + " x " +
                std::to_string(size) + " bytes but only " + std::to_string(remaining()) +
                " remain");
    }
}

std::uint64_t ByteReader::little_endian(int n) {
    require(1, static_cast<std::uint64_t>(n), "field");
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= std::uint64_t{bytes_[pos_ + i]} << (8 * i);
    pos_ += static_cast<std::size_t>(n);
    return v;
}

std::span<const std::uint8_t> ByteReader::bytes(std::uint64_t n) {
    require(n, 1, "byte run");
    auto out = bytes_.subspan(pos_, n);
    pos_ += n;
    return out;
}

std::string ByteReader::string(std::uint32_t max_length) {
    const std::uint32_t n = u32();
    if (n > max_length) {
        damaged("string of " + std::to_string(n) + " bytes exceeds the limit of " +
                std::to_string(max_length));
    }
    auto b = bytes(n);
    return std::string(b.begin(), b.end());
}

void ByteReader::expect_end() {
    if (remaining() != 0) damaged(std::to_string(remaining()) + " unexpected trailing bytes");
}

}  // namespace gradcodec
