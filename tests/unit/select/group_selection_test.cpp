#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "expect_error.hpp"
#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/group.hpp"
#include "select/topk.hpp"

using namespace gradcodec;
using gradcodec::testing::thrown_error;

namespace {

// A step of tensors of very different loudness, with many exact ties (values on a grid).
std::vector<std::vector<float>> uneven_step(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const std::size_t sizes[] = {1000, 37, 4096, 1, 513, 2048};
    const float scales[] = {1e-3f, 5e-2f, 1e-4f, 1e-3f, 2e-2f, 1e-3f};
    std::vector<std::vector<float>> step;
    for (std::size_t t = 0; t < std::size(sizes); ++t) {
        std::exponential_distribution<float> magnitude(1.0f);
        std::vector<float> x(sizes[t]);
        for (auto& v : x) {
            const float m = std::round(magnitude(rng) * 8.0f) / 8.0f * scales[t];
            v = (rng() & 1) ? m : -m;
        }
        step.push_back(std::move(x));
    }
    return step;
}

std::vector<TensorMeta> metas_of(const std::vector<std::vector<float>>& step) {
    std::vector<TensorMeta> m;
    for (std::size_t t = 0; t < step.size(); ++t) {
        m.push_back({"t" + std::to_string(t), DType::f32, {step[t].size()}});
    }
    return m;
}

TensorLoader loader_of(const std::vector<std::vector<float>>& step, int* loads = nullptr) {
    return [&step, loads](std::size_t i) {
        if (loads) ++*loads;
        const auto bytes = std::as_bytes(std::span<const float>(step[i]));
        return std::vector<std::byte>(bytes.begin(), bytes.end());
    };
}

std::vector<float> decode_floats(const EncodedTensor& e, const TensorMeta& meta) {
    std::vector<float> out(meta.element_count());
    decode_tensor(e.codec_id, meta, e.payload, std::as_writable_bytes(std::span<float>(out)));
    return out;
}

// Encodes the whole step at group scope; returns the decoded tensors.
std::vector<std::vector<float>> group_round_trip(const std::string& spec_text,
                                                 const std::vector<std::vector<float>>& step,
                                                 std::vector<EncodedTensor>* encoded = nullptr) {
    const CodecSpec spec = parse_codec_spec(spec_text);
    const auto metas = metas_of(step);
    const GroupCut cut = plan_group_cut(spec, metas, loader_of(step));
    GroupEncoder encoder(spec, cut);
    std::vector<std::vector<float>> out;
    for (std::size_t t = 0; t < step.size(); ++t) {
        const EncodedTensor e =
            encoder.encode(metas[t], std::as_bytes(std::span<const float>(step[t])));
        out.push_back(decode_floats(e, metas[t]));
        if (encoded) encoded->push_back(e);
    }
    return out;
}

std::uint64_t nonzero(const std::vector<std::vector<float>>& step) {
    std::uint64_t c = 0;
    for (const auto& x : step)
        for (float v : x) c += v != 0.0f;
    return c;
}

}  // namespace

TEST_CASE(
    "group topk keeps exactly the step's global top ceil(D*N), ties to the lower tensor then index",
    "[group]") {
    const auto step = uneven_step(3);
    std::uint64_t n = 0;
    for (const auto& x : step) n += x.size();
    for (const double density : {0.001, 0.01, 0.1, 0.5}) {
        // The reference: every (tensor, index) ranked by |x| descending, then tensor, index.
        std::vector<std::tuple<float, std::size_t, std::size_t>> all;
        for (std::size_t t = 0; t < step.size(); ++t)
            for (std::size_t i = 0; i < step[t].size(); ++i)
                all.emplace_back(-std::fabs(step[t][i]), t, i);
        std::sort(all.begin(), all.end());
        const std::uint64_t k = topk_count(n, density);
        std::vector<std::vector<bool>> want(step.size());
        for (std::size_t t = 0; t < step.size(); ++t) want[t].assign(step[t].size(), false);
        for (std::uint64_t j = 0; j < k; ++j) want[std::get<1>(all[j])][std::get<2>(all[j])] = true;

        const auto back =
            group_round_trip("topk:density=" + std::to_string(density) + ",values=f32", step);
        std::uint64_t kept = 0;
        for (std::size_t t = 0; t < step.size(); ++t) {
            for (std::size_t i = 0; i < step[t].size(); ++i) {
                const bool is_kept = want[t][i];
                kept += is_kept;
                // Kept values are exact in f32; zeros of the original cannot tell, so compare
                // values.
                REQUIRE(back[t][i] == (is_kept ? step[t][i] : 0.0f));
            }
        }
        CHECK(kept == k);
    }
}

TEST_CASE("a group of one tensor encodes to the same bytes as the tensor alone", "[group]") {
    const auto step = std::vector<std::vector<float>>{uneven_step(5)[2]};
    const auto meta = metas_of(step)[0];
    for (const char* text : {"topk:density=0.01", "topk:count=17,values=f32", "dgc:density=0.01",
                             "threshold:value=0.0002", "fft:density=0.05", "dct:density=0.05",
                             "fft:density=0.1,select=dgc", "dct:density=0.1,select=dgc"}) {
        INFO(text);
        std::vector<EncodedTensor> grouped;
        group_round_trip(text, step, &grouped);
        const EncodedTensor alone = encode_tensor(parse_codec_spec(text), meta,
                                                  std::as_bytes(std::span<const float>(step[0])));
        CHECK(grouped[0].codec_id == alone.codec_id);
        CHECK(grouped[0].payload == alone.payload);
    }
}

TEST_CASE("group sidco applies one fitted threshold to every tensor of the step", "[group]") {
    const auto step = uneven_step(7);
    std::uint64_t n = 0;
    for (const auto& x : step) n += x.size();
    for (const auto& [text, density] : std::vector<std::pair<const char*, double>>{
             {"sidco:dist=exp,density=0.01", 0.01},
             {"sidco:dist=gamma,density=0.05", 0.05},
             {"sidco:dist=gpareto,density=0.01,stages=2", 0.01}}) {
        INFO(text);
        const auto metas = metas_of(step);
        const CodecSpec spec = parse_codec_spec(text);
        const GroupCut cut = plan_group_cut(spec, metas, loader_of(step));
        const auto back = group_round_trip(std::string(text) + ",values=f32", step);
        for (std::size_t t = 0; t < step.size(); ++t) {
            for (std::size_t i = 0; i < step[t].size(); ++i) {
                const bool above = std::fabs(step[t][i]) > cut.threshold;
                REQUIRE(back[t][i] == (above ? step[t][i] : 0.0f));
            }
        }
        CHECK(cut.stages >= 1);
        // The fit is an estimate; it must still land near the step's target.
        const double achieved = double(nonzero(back)) / (density * double(n));
        CHECK(achieved > 0.25);
        CHECK(achieved < 4.0);
    }
}

TEST_CASE("group dgc keeps a count in DGC's band around the step's target, or the exact top-k",
          "[group]") {
    const auto step = uneven_step(11);
    std::uint64_t n = 0;
    for (const auto& x : step) n += x.size();
    for (const double density : {0.01, 0.05}) {
        const auto back =
            group_round_trip("dgc:density=" + std::to_string(density) + ",values=f32", step);
        const std::uint64_t k = topk_count(n, density);
        const std::uint64_t kept = nonzero(back);
        CHECK(kept >= std::uint64_t(0.8 * double(k)) - 1);
        CHECK(kept <= std::max<std::uint64_t>(k, std::uint64_t(1.3 * density * double(n))));
    }
}

TEST_CASE("group fft with select=topk carries the step's scalar target exactly (or one over)",
          "[group]") {
    const auto step = uneven_step(13);
    std::uint64_t n = 0;
    for (const auto& x : step) n += x.size();
    const CodecSpec spec = parse_codec_spec("fft:density=0.05,chunk=64");
    const auto metas = metas_of(step);
    const GroupCut cut = plan_group_cut(spec, metas, loader_of(step));
    GroupEncoder encoder(spec, cut);
    std::uint64_t carried = 0;
    for (std::size_t t = 0; t < step.size(); ++t) {
        const EncodedTensor e =
            encoder.encode(metas[t], std::as_bytes(std::span<const float>(step[t])));
        carried += describe_payload(e.codec_id, metas[t], e.payload).carried;
    }
    const std::uint64_t target = topk_count(n, 0.05);
    CHECK(carried >= target);
    CHECK(carried <= target + 1);
}

TEST_CASE("group scope beats tensor scope in squared error at the same kept count", "[group]") {
    const auto step = uneven_step(17);
    const auto back = group_round_trip("topk:density=0.01,values=f32", step);
    double group_error = 0, tensor_error = 0;
    const auto metas = metas_of(step);
    for (std::size_t t = 0; t < step.size(); ++t) {
        const EncodedTensor e =
            encode_tensor(parse_codec_spec("topk:density=0.01,values=f32"), metas[t],
                          std::as_bytes(std::span<const float>(step[t])));
        const auto alone = decode_floats(e, metas[t]);
        for (std::size_t i = 0; i < step[t].size(); ++i) {
            group_error += std::pow(double(step[t][i]) - back[t][i], 2);
            tensor_error += std::pow(double(step[t][i]) - alone[i], 2);
        }
    }
    CHECK(group_error < tensor_error);
}

TEST_CASE("group planning reads tensors one at a time, and refuses codecs without group scope",
          "[group]") {
    const auto step = uneven_step(19);
    int loads = 0;
    const auto metas = metas_of(step);
    plan_group_cut(parse_codec_spec("topk:density=0.01"), metas, loader_of(step, &loads));
    CHECK(loads == 2 * static_cast<int>(step.size()));  // two radix passes
    const auto refusal = thrown_error(
        [&] { plan_group_cut(parse_codec_spec("rangeq:bits=8"), metas, loader_of(step)); });
    CHECK(refusal.kind() == ErrorKind::usage);
    // The list comes from the codec registry's group families.
    CHECK(std::string(refusal.what()).find("applies to topk, threshold, dgc, sidco, fft, dct") !=
          std::string::npos);
    REQUIRE_THROWS_AS(GroupEncoder(parse_codec_spec("lossless"), GroupCut{}), Error);
}

TEST_CASE("group planning refuses a non-finite value naming the tensor", "[group]") {
    auto step = uneven_step(23);
    step[4][7] = std::nanf("");
    const auto metas = metas_of(step);
    const auto e = thrown_error(
        [&] { plan_group_cut(parse_codec_spec("topk:density=0.01"), metas, loader_of(step)); });
    CHECK(e.kind() == ErrorKind::bad_input);
    CHECK(std::string(e.what()).find("t4: element 7") != std::string::npos);
}
