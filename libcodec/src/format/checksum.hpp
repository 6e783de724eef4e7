#pragma once
// XXH3-64, the format's checksum (format-spec/FORMAT.md), hashed on the widest vector unit this
// CPU has. Every payload is hashed once when it is written and once when it is read, so the
// hash runs over every byte a dump holds. xxHash's library as Debian builds it hashes with
// SSE2 only, and its own run-time dispatch is not in the static archive the CLI links; on
// AVX2 the same hash runs 1.5 times as fast from memory and 2.9 times from cache (measured in
// docs/results/benchmark-history.md, "Checksums, decode and mapped input").
#include <cstdint>
#include <span>

#include "format/checksum_impl.hpp"

namespace gradcodec {

// One checksum over bytes given in any number of pieces; the digest does not depend on where
// the pieces are cut.
class Checksum {
  public:
    Checksum();
    Checksum(const Checksum&) = delete;
    Checksum& operator=(const Checksum&) = delete;
    ~Checksum();
    void update(std::span<const std::uint8_t> bytes);
    std::uint64_t digest() const;

  private:
    const ChecksumImpl& impl_;
    void* state_;
};

std::uint64_t checksum(std::span<const std::uint8_t> bytes);

// The implementation Checksum uses on this CPU (for tests and benchmarks).
const ChecksumImpl& chosen_checksum_impl();

}  // namespace gradcodec
