#pragma once
// Suggestions for a mistyped subcommand or flag: the closest known word within two edits.
#include <optional>
#include <string>
#include <vector>

namespace gradcodec::cli {

std::optional<std::string> closest_word(const std::string& typed,
                                        const std::vector<std::string>& known);

}  // namespace gradcodec::cli
