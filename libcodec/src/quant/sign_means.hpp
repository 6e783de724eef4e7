#pragma once
// The reconstruction values of the one-bit codecs (format-spec/codec-sign.md §2): per bucket
// nothing (plain signs), the mean magnitude (EF-signSGD's scaled sign), or the means of the
// non-negative and of the negative values (1-bit SGD).
#include <cstdint>
#include <span>

namespace gradcodec {

enum class SignLevels : std::uint8_t { unit = 0, mean_magnitude = 1, two_means = 2 };

constexpr unsigned sign_level_count(SignLevels kind) {
    return static_cast<unsigned>(kind);
}

// What a bit of 0 (x >= 0) and of 1 (x < 0) decode to in this bucket.
struct SignPair {
    float non_negative = 1.0f;
    float negative = -1.0f;
};

// The pair for a bucket of finite values; the means are taken in binary64 and rounded once.
SignPair sign_pair(SignLevels kind, std::span<const float> values);

// The stored reconstruction values of a pair (0, 1 or 2 of them) and the pair they stand for.
void stored_levels(SignLevels kind, const SignPair& pair, float* out);
SignPair pair_of_stored(SignLevels kind, const float* stored);

}  // namespace gradcodec
