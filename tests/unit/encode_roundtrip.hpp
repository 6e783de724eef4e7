#pragma once
// The encoder's promise, checked on one tensor: encoding either fails with a clear error
// (usage or bad_input, naming the tensor) or writes a payload that the decoder, and inspect's
// describe, read back. Shared by the adversarial property test and the round-trip fuzzer.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"

namespace gradcodec::testing {

struct RoundTrip {
    bool encoded = false;
    std::string refusal;         // the encoder's message when it refused
    std::string broken_promise;  // empty when the promise held
    std::vector<std::byte> decoded;
};

inline RoundTrip encode_then_decode(const CodecSpec& spec, const TensorMeta& meta,
                                    std::span<const std::byte> data, const EncodeOptions& options) {
    RoundTrip r;
    EncodedTensor e;
    try {
        e = encode_tensor(spec, meta, data, options);
    } catch (const Error& error) {
        r.refusal = error.what();
        const bool clear = error.kind() == ErrorKind::bad_input || error.kind() == ErrorKind::usage;
        if (!clear || r.refusal.find(meta.name) == std::string::npos) {
            r.broken_promise = "refused without naming the tensor as bad input: " + r.refusal;
        }
        return r;
    }
    r.encoded = true;
    r.decoded.resize(meta.byte_count());
    try {
        decode_tensor(e.codec_id, meta, e.payload, r.decoded);
        (void)describe_payload(e.codec_id, meta, e.payload);
    } catch (const Error& error) {
        r.broken_promise = std::string("wrote a payload its own decoder refuses: ") + error.what();
    }
    return r;
}

}  // namespace gradcodec::testing
