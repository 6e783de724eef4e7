// TEMP stub (drop at merge): minimal stand-ins for the selectors and position coders of the
// threshold branch, so the frequency codecs build and test first.
// Selections match the real ones (ties to the lower index); the byte formats do not.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "index/position_coder.hpp"
#include "select/dgc.hpp"
#include "select/sidco.hpp"
#include "select/topk.hpp"

namespace gradcodec {

std::uint64_t topk_count(std::uint64_t n, double density) {
    if (n == 0) return 0;
    const double k = std::ceil(density * static_cast<double>(n));
    if (!(k < static_cast<double>(n))) return n;
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(k));
}

Selection select_topk(std::span<const float> x, std::uint64_t k) {
    Selection s;
    k = std::min<std::uint64_t>(k, x.size());
    std::vector<std::uint64_t> order(x.size());
    std::iota(order.begin(), order.end(), 0);
    auto before = [&](std::uint64_t a, std::uint64_t b) {
        const auto ma = magnitude_bits(x[a]), mb = magnitude_bits(x[b]);
        return ma != mb ? ma > mb : a < b;
    };
    if (k < order.size()) std::nth_element(order.begin(), order.begin() + k, order.end(), before);
    order.resize(k);
    std::sort(order.begin(), order.end());
    s.indices = std::move(order);
    return s;
}

Selection select_dgc(std::span<const float> x, const DgcParams& p) {
    return select_topk(x, topk_count(x.size(), p.density));
}
Selection select_sidco(std::span<const float> x, const SidcoParams& p) {
    return select_topk(x, topk_count(x.size(), p.density));
}

void encode_positions(std::span<const std::uint64_t> sorted, std::uint64_t, ByteWriter& out) {
    out.u64(sorted.size());
    for (auto i : sorted) out.u64(i);
}

std::vector<std::uint64_t> decode_positions(ByteReader& in, std::uint64_t n) {
    const std::uint64_t count = in.u64();
    if (count > n) in.damaged("position count exceeds n");
    in.require(count, 8, "positions");
    std::vector<std::uint64_t> out(count);
    for (std::size_t j = 0; j < out.size(); ++j) {
        out[j] = in.u64();
        if (out[j] >= n || (j > 0 && out[j] <= out[j - 1])) in.damaged("bad position");
    }
    return out;
}

PositionSectionInfo describe_positions(ByteReader& in, std::uint64_t n) {
    const auto start = in.position();
    const auto v = decode_positions(in, n);
    return {v.size(), 8 * (in.position() - start)};
}

}  // namespace gradcodec
