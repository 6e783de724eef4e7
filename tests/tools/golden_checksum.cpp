// Prints the XXH3-64 of every tensor's decoded bytes, in stream order, hashed as one
// sequence: the identity a golden stream must keep forever. usage: golden_checksum STREAM
#include <xxhash.h>

#include <cstdint>
#include <cstdio>

#include "golden_digest.hpp"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: golden_checksum STREAM\n");
        return 2;
    }
    try {
        std::printf("%016llx\n",
                    static_cast<unsigned long long>(gradcodec::testing::decoded_digest(argv[1])));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "golden_checksum: %s: %s\n", argv[1], e.what());
        return 3;
    }
    return 0;
}
