#pragma once
// The textual codec spec `name[:key=value,...]` names a pipeline everywhere: CLI, stream
// records, future bindings. Parsing checks the grammar; each codec checks its own keys.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Everything declared here is the shared library's API; the rest of it stays hidden.
#pragma GCC visibility push(default)
namespace gradcodec {

struct CodecSpec {
    std::string name;
    std::vector<std::pair<std::string, std::string>> params;  // in the order given

    std::optional<std::string_view> get(std::string_view key) const;
    std::string to_string() const;
    // A copy with `key` set to `value`: replaced in place if present, appended otherwise.
    CodecSpec with(const std::string& key, const std::string& value) const;
};

// Throws Error(usage) on a malformed spec: empty name, empty key, missing '=', repeated key.
CodecSpec parse_codec_spec(std::string_view text);

}  // namespace gradcodec
#pragma GCC visibility pop
