#pragma once
// The digest of a stream's decoded values, shared by the golden test and golden_checksum.
#include <xxhash.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gradcodec/gradcodec.hpp"

namespace gradcodec::testing {

inline std::uint64_t decoded_digest(const std::string& path) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                         &std::fclose);
    if (!file) throw std::runtime_error("cannot open");
    FileSource source(file.get());
    StreamReader reader(source);
    std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> state(XXH3_createState(),
                                                                          &XXH3_freeState);
    XXH3_64bits_reset(state.get());
    while (auto record = reader.next()) {
        if (const auto* d = std::get_if<TypedRecord>(&*record)) {
            // Typed datasets (format 1.1) travel as bytes: their path, type and data.
            XXH3_64bits_update(state.get(), d->path.data(), d->path.size());
            XXH3_64bits_update(state.get(), d->type.data(), d->type.size());
            XXH3_64bits_update(state.get(), d->data.data(), d->data.size());
            continue;
        }
        const auto* t = std::get_if<TensorRecord>(&*record);
        if (!t) continue;
        const TensorMeta meta{t->path, t->dtype, t->shape};
        std::vector<std::byte> values(meta.byte_count());
        decode_tensor(t->codec_id, meta, t->payload, values);
        XXH3_64bits_update(state.get(), t->path.data(), t->path.size());
        XXH3_64bits_update(state.get(), values.data(), values.size());
    }
    return XXH3_64bits_digest(state.get());
}

}  // namespace gradcodec::testing
