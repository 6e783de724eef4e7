#include "common/spec_params.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "gradcodec/error.hpp"

namespace gradcodec {
namespace {

std::string format_number(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

}  // namespace

std::optional<std::string_view> SpecParams::lookup(std::string_view key) {
    known_.emplace_back(key);
    return spec_.get(key);
}

bool SpecParams::has(std::string_view key) {
    return lookup(key).has_value();
}

void SpecParams::invalid(std::string_view key, const std::string& expected) const {
    const auto value = spec_.get(key);
    fail(ErrorKind::usage, "codec '" + spec_.name + "': " + std::string(key) + "=" +
                               std::string(value.value_or("")) + " is invalid; expected " +
                               expected);
}

std::optional<std::int64_t> SpecParams::optional_integer(std::string_view key, std::int64_t lo,
                                                         std::int64_t hi) {
    const auto text = lookup(key);
    if (!text) return std::nullopt;
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    const std::string expected = "an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
    if (ec != std::errc() || end != text->data() + text->size() || v < lo || v > hi) {
        invalid(key, expected);
    }
    return v;
}

std::int64_t SpecParams::integer(std::string_view key, std::int64_t fallback, std::int64_t lo,
                                 std::int64_t hi) {
    return optional_integer(key, lo, hi).value_or(fallback);
}

std::optional<double> SpecParams::optional_number(std::string_view key, double lo, double hi) {
    const auto text = lookup(key);
    if (!text) return std::nullopt;
    const std::string s(*text);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v) || v < lo || v > hi) {
        invalid(key, "a number in [" + format_number(lo) + ", " + format_number(hi) + "]");
    }
    return v;
}

double SpecParams::number(std::string_view key, double fallback, double lo, double hi) {
    return optional_number(key, lo, hi).value_or(fallback);
}

std::string SpecParams::choice(std::string_view key, std::string_view fallback,
                               std::initializer_list<std::string_view> options) {
    const auto text = lookup(key);
    if (!text) return std::string(fallback);
    for (auto o : options)
        if (o == *text) return std::string(o);
    std::string list;
    for (auto o : options) list += (list.empty() ? "" : "|") + std::string(o);
    invalid(key, "one of " + list);
}

void SpecParams::finish() const {
    for (const auto& [key, value] : spec_.params) {
        bool known = false;
        for (const auto& k : known_) known = known || k == key;
        if (known) continue;
        std::string list;
        for (std::size_t i = 0; i < known_.size(); ++i) {
            bool repeated = false;
            for (std::size_t j = 0; j < i; ++j) repeated = repeated || known_[j] == known_[i];
            if (!repeated) list += (list.empty() ? "" : ", ") + known_[i];
        }
        fail(ErrorKind::usage, "codec '" + spec_.name + "': unknown key '" + key +
                                   "'; valid keys: " + (list.empty() ? "(none)" : list));
    }
}

}  // namespace gradcodec
