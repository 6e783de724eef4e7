#include "gradcodec/codec_spec.hpp"

#include "gradcodec/error.hpp"

namespace gradcodec {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
}

[[noreturn]] void malformed(std::string_view text, const std::string& why) {
    fail(ErrorKind::usage,
         "bad codec spec '" + std::string(text) + "': " + why + " (expected name[:key=value,...])");
}

}  // namespace

std::optional<std::string_view> CodecSpec::get(std::string_view key) const {
    for (const auto& [k, v] : params)
        if (k == key) return std::string_view(v);
    return std::nullopt;
}

CodecSpec CodecSpec::with(const std::string& key, const std::string& value) const {
    CodecSpec out = *this;
    for (auto& [k, v] : out.params) {
        if (k == key) {
            v = value;
            return out;
        }
    }
    out.params.emplace_back(key, value);
    return out;
}

std::string CodecSpec::to_string() const {
    std::string s = name;
    for (std::size_t i = 0; i < params.size(); ++i) {
        s += i == 0 ? ':' : ',';
        s += params[i].first + "=" + params[i].second;
    }
    return s;
}

CodecSpec parse_codec_spec(std::string_view text) {
    CodecSpec spec;
    const auto colon = text.find(':');
    spec.name = std::string(trim(text.substr(0, colon)));
    if (spec.name.empty()) malformed(text, "empty codec name");
    if (colon == std::string_view::npos) return spec;
    std::string_view rest = text.substr(colon + 1);
    while (true) {
        const auto comma = rest.find(',');
        const std::string_view item = trim(rest.substr(0, comma));
        const auto eq = item.find('=');
        if (eq == std::string_view::npos) malformed(text, "'" + std::string(item) + "' has no '='");
        const std::string key(trim(item.substr(0, eq)));
        const std::string value(trim(item.substr(eq + 1)));
        if (key.empty()) malformed(text, "empty key");
        if (value.empty()) malformed(text, "key '" + key + "' has an empty value");
        if (spec.get(key)) malformed(text, "key '" + key + "' given twice");
        spec.params.emplace_back(key, value);
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
    }
    return spec;
}

}  // namespace gradcodec
