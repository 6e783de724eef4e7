#include "quant/magnitude_histogram.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "common/magnitude_max.hpp"
#include "common/parallel.hpp"
#include "common/scratch.hpp"

namespace gradcodec {
namespace {

// Values per block: the max scans a block and the histogram then counts it while it is still
// in the L1 cache, so the tensor is read from memory once.
constexpr std::size_t kBlock = 4096;
// Values per piece of work for the max alone, as the codecs split their other passes.
constexpr std::size_t kMaxPiece = 64 * 1024;

// The bins of the two floats in a 64-bit word, whichever the byte order: both get counted.
// The mask drops each float's sign; low_bin also gives the bin of one float's bits alone.
constexpr std::uint64_t kBinMask = kMagnitudeBins - 1;
std::uint64_t low_bin(std::uint64_t pair) {
    return (pair >> kMagnitudeBinShift) & kBinMask;
}
std::uint64_t high_bin(std::uint64_t pair) {
    return (pair >> (32 + kMagnitudeBinShift)) & kBinMask;
}

// Four interleaved sub-histograms: gradients crowd into few bins, and one table would make
// every increment wait on the previous one to the same counter. Values are loaded two at a
// time: the loop is bound by its loads and stores, and this saves one load in three.
void add_histogram_serial(std::span<const float> values, MagnitudeSurvey& survey) {
    std::array<std::array<std::uint32_t, kMagnitudeBins>, 4> parts{};
    auto pair_at = [](const float* v) {
        std::uint64_t pair = 0;
        std::memcpy(&pair, v, sizeof pair);
        return pair;
    };
    // uint32 counters cannot overflow within a flush interval of 2^31 values per part.
    constexpr std::size_t kFlush = std::size_t{1} << 31;
    const std::size_t n = values.size();
    for (std::size_t start = 0; start < n; start += kFlush) {
        const std::size_t end = std::min(n, start + kFlush);
        for (std::size_t first = start; first < end; first += kBlock) {
            const auto block = values.subspan(first, std::min(kBlock, end - first));
            survey.max_bits = std::max(survey.max_bits, largest_magnitude_bits(block));
            const float* v = block.data();
            std::size_t i = 0;
            for (; i + 4 <= block.size(); i += 4) {
                const std::uint64_t a = pair_at(v + i);
                const std::uint64_t b = pair_at(v + i + 2);
                ++parts[0][low_bin(a)];
                ++parts[1][high_bin(a)];
                ++parts[2][low_bin(b)];
                ++parts[3][high_bin(b)];
            }
            for (; i < block.size(); ++i) ++parts[0][low_bin(std::bit_cast<std::uint32_t>(v[i]))];
        }
        for (auto& part : parts) {
            for (std::size_t b = 0; b < kMagnitudeBins; ++b) survey.counts[b] += part[b];
            part.fill(0);
        }
    }
}

MagnitudeSurvey histogram_survey(std::span<const float> values) {
    MagnitudeSurvey total;
    total.has_histogram = true;
    const unsigned threads = codec_threads();
    if (threads <= 1) {
        add_histogram_serial(values, total);
        return total;
    }
    // One piece per thread, summed: exact integer counts whatever the split.
    const std::size_t piece =
        std::max(std::size_t{1} << 20, (values.size() + threads - 1) / threads);
    ScratchVector<MagnitudeSurvey> parts(piece_count(values.size(), piece));
    parallel_pieces(values.size(), piece, [&](std::size_t first, std::size_t size) {
        add_histogram_serial(values.subspan(first, size), parts[first / piece]);
    });
    for (const MagnitudeSurvey& part : parts) {
        total.max_bits = std::max(total.max_bits, part.max_bits);
        for (std::size_t b = 0; b < kMagnitudeBins; ++b) total.counts[b] += part.counts[b];
    }
    return total;
}

std::uint32_t max_survey(std::span<const float> values) {
    ScratchVector<std::uint32_t> maxima(piece_count(values.size(), kMaxPiece));
    parallel_pieces(values.size(), kMaxPiece, [&](std::size_t first, std::size_t size) {
        maxima[first / kMaxPiece] = largest_magnitude_bits(values.subspan(first, size));
    });
    return maxima.empty() ? 0 : *std::max_element(maxima.begin(), maxima.end());
}

}  // namespace

MagnitudeSurvey survey_magnitudes(std::span<const float> values, bool histogram) {
    if (histogram) return histogram_survey(values);
    MagnitudeSurvey survey;
    survey.max_bits = max_survey(values);
    return survey;
}

}  // namespace gradcodec
