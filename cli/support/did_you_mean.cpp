#include "support/did_you_mean.hpp"

#include <algorithm>

namespace gradcodec::cli {
namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] =
                std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

}  // namespace

std::optional<std::string> closest_word(const std::string& typed,
                                        const std::vector<std::string>& known) {
    std::optional<std::string> best;
    std::size_t best_distance = 3;  // more than two edits away is no suggestion
    for (const auto& word : known) {
        const std::size_t d = edit_distance(typed, word);
        if (d < best_distance) {
            best_distance = d;
            best = word;
        }
    }
    return best;
}

}  // namespace gradcodec::cli
