// libFuzzer target over the container: the stream reader, and every registered codec's
// decoder on each tensor record the reader yields. Its mutator keeps checksums valid most of
// the time (checksum_fixup.hpp), so fuzzed bytes get past them.
#include <cstddef>
#include <cstdint>
#include <variant>

#include "checksum_fixup.hpp"
#include "decode_record.hpp"
#include "fuzz_limits.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/stream.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gradcodec;
    SpanSource source(std::span<const std::uint8_t>(data, size));
    try {
        StreamReader reader(source, gcfuzz::fuzz_limits());
        while (auto record = reader.next()) {
            if (const auto* t = std::get_if<TensorRecord>(&*record)) {
                gcfuzz::describe_and_decode(t->codec_id, TensorMeta{t->path, t->dtype, t->shape},
                                            t->payload);
            }
        }
    } catch (const Error&) {
    }
    return 0;
}

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

// One mutation in eight keeps its stale checksums, so the checksum checks stay fuzzed too.
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
    size = LLVMFuzzerMutate(data, size, max_size);
    if (seed % 8 != 0) gcfuzz::fix_checksums(data, size);
    return size;
}
