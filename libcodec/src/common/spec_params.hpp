#pragma once
// Typed, validated access to a codec's keys. Each getter records the key as valid, so
// finish() can reject unknown keys with the full list of the codec's keys.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gradcodec/codec_spec.hpp"

namespace gradcodec {

class SpecParams {
  public:
    explicit SpecParams(const CodecSpec& spec) : spec_(spec) {}

    bool has(std::string_view key);
    std::int64_t integer(std::string_view key, std::int64_t fallback, std::int64_t lo,
                         std::int64_t hi);
    double number(std::string_view key, double fallback, double lo, double hi);
    std::optional<double> optional_number(std::string_view key, double lo, double hi);
    std::optional<std::int64_t> optional_integer(std::string_view key, std::int64_t lo,
                                                 std::int64_t hi);
    std::string choice(std::string_view key, std::string_view fallback,
                       std::initializer_list<std::string_view> options);
    // Throws Error(usage) on a key no getter asked for.
    void finish() const;
    [[noreturn]] void invalid(std::string_view key, const std::string& expected) const;

  private:
    std::optional<std::string_view> lookup(std::string_view key);
    const CodecSpec& spec_;
    std::vector<std::string> known_;
};

}  // namespace gradcodec
