#include "format/checksum.hpp"

#include <new>

#include "common/cpu_features.hpp"

namespace gradcodec {

const ChecksumImpl& chosen_checksum_impl() {
#if defined(GRADCODEC_CHECKSUM_AVX2)
    static const ChecksumImpl& impl = cpu_has_avx2() ? kChecksumAvx2 : kChecksumBaseline;
    return impl;
#else
    return kChecksumBaseline;
#endif
}

Checksum::Checksum() : impl_(chosen_checksum_impl()), state_(impl_.create()) {
    if (!state_) throw std::bad_alloc();
}

Checksum::~Checksum() {
    impl_.destroy(state_);
}

void Checksum::update(std::span<const std::uint8_t> bytes) {
    impl_.update(state_, bytes.data(), bytes.size());
}

std::uint64_t Checksum::digest() const {
    return impl_.digest(state_);
}

std::uint64_t checksum(std::span<const std::uint8_t> bytes) {
    return chosen_checksum_impl().hash(bytes.data(), bytes.size());
}

}  // namespace gradcodec
