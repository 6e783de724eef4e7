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

// Every codec, and the sparse and frequency codecs with every value coder, at settings that
// reach their edges (two-level rangeq, density 1, chunks of odd and prime lengths).
inline const std::vector<std::string>& every_codec_and_value_coder() {
    static const std::vector<std::string> specs = {
        "lossless",
        "cast:to=f16",
        "cast:to=bf16",
        "rangeq:bits=2",
        "rangeq:bits=8",
        "rangeq:bits=16",
        "rangeq:bits=4,round=truncate",
        "rangeq:bits=8,mantissa=3,eps=0.125",
        "topk:count=1,values=f32",
        "topk:density=0.5,values=rangeq,bits=16",
        "topk:density=0.9,values=rangeq,bits=2",
        "topk:density=0.01",
        "topk:density=1,values=bf16",
        "topk:density=0.3,values=f16,zstd=off",
        "threshold:value=0.5,values=rangeq",
        "threshold:value=0,values=f32",
        "threshold:value=1e300,values=bf16",
        "dgc:density=0.1,values=rangeq,bits=12",
        "dgc:density=0.01,seed=3,values=f32",
        "sidco:dist=exp,density=0.1",
        "sidco:dist=gpareto,density=0.01,values=rangeq",
        "sidco:dist=gamma,density=0.05,stages=2,values=f32",
        "fft",
        "fft:density=1,chunk=7,values=f32",
        "fft:density=0.2,values=f16,select=sidco",
        "fft:density=0.3,chunk=16,values=bf16,select=dgc",
        "dct",
        "dct:density=1,chunk=5,values=rangeq,bits=16",
        "dct:density=0.1,values=f16,select=dgc",
        "randomk:density=0.1,seed=1",
        "randomk:density=1,scale=unbiased,values=f32",
        "randomk:density=0.01,values=rangeq,bits=4",
        "qsgd",
        "qsgd:levels=1,bucket=1,seed=2",
        "qsgd:levels=1000,bucket=0",
        "terngrad",
        "terngrad:bucket=7,seed=3",
        "sign",
        "sign:scale=none,bucket=3",
        "onebit:bucket=64",
        "onebit",
        "natural",
        "natural:seed=9",
        "lowrank",
        "lowrank:rank=1,iters=1,values=f32",
        "lowrank:rank=2,fallback=cast,values=bf16",
        "lowrank:rank=8,values=rangeq,bits=8,fallback=rangeq",
    };
    return specs;
}

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
