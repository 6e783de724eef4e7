#include "sample_stream.hpp"

#include <cmath>
#include <cstring>

#include "gradcodec/error.hpp"

using namespace gradcodec;

namespace gctest {
namespace {

// xorshift32: the same bytes on every platform, unlike std::normal_distribution.
struct Xorshift {
    std::uint32_t state;
    std::uint32_t next() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        return state;
    }
    double uniform() { return (next() >> 8) * (1.0 / 16777216.0); }  // [0, 1)
};

template <typename T>
void put(std::vector<std::byte>& out, T value) {
    const std::size_t at = out.size();
    out.resize(at + sizeof(T));
    std::memcpy(out.data() + at, &value, sizeof(T));
}

std::uint16_t to_half_bits(double x, bool bf16) {
    const float f = static_cast<float>(x);
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, 4);
    if (bf16) return static_cast<std::uint16_t>(bits >> 16);  // truncation is fine for samples
    // Small finite values only (|x| < 2): exponent and top mantissa bits of binary16.
    const std::uint32_t sign = (bits >> 16) & 0x8000u;
    const int exponent = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
    if (exponent <= 0) return static_cast<std::uint16_t>(sign);
    return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(exponent) << 10) |
                                      ((bits >> 13) & 0x3FFu));
}

Attribute numeric_attribute(std::string name, DType dtype, std::vector<std::uint64_t> shape,
                            std::vector<std::byte> data) {
    Attribute a;
    a.name = std::move(name);
    a.kind = AttrKind::numeric;
    a.dtype = dtype;
    a.shape = std::move(shape);
    for (std::byte b : data) a.data.push_back(static_cast<std::uint8_t>(b));
    return a;
}

}  // namespace

std::vector<std::byte> gradient_like_values(DType dtype, std::uint64_t count, std::uint32_t seed) {
    Xorshift rng{seed * 2654435761u + 1u};
    std::vector<std::byte> out;
    for (std::uint64_t i = 0; i < count; ++i) {
        // A Laplace-like bulk with rare outliers, scaled like a gradient (1e-3).
        const double u = rng.uniform();
        const double magnitude = -std::log(1.0 - u) * 1e-3 * (rng.next() % 50 == 0 ? 100.0 : 1.0);
        const double x = (rng.next() & 1) ? magnitude : -magnitude;
        switch (dtype) {
            case DType::f32:
                put(out, static_cast<float>(x));
                break;
            case DType::f64:
                put(out, x);
                break;
            case DType::f16:
                put(out, to_half_bits(x, false));
                break;
            case DType::bf16:
                put(out, to_half_bits(x, true));
                break;
            case DType::i8:
                put(out, static_cast<std::int8_t>(rng.next()));
                break;
            case DType::u8:
                put(out, static_cast<std::uint8_t>(rng.next()));
                break;
            case DType::bool8:
                put(out, static_cast<std::uint8_t>(rng.next() & 1));
                break;
            case DType::i16:
                put(out, static_cast<std::int16_t>(rng.next()));
                break;
            case DType::u16:
                put(out, static_cast<std::uint16_t>(rng.next()));
                break;
            case DType::i32:
                put(out, static_cast<std::int32_t>(rng.next()));
                break;
            case DType::u32:
                put(out, rng.next());
                break;
            case DType::i64:
                put(out, static_cast<std::int64_t>(i * 10));
                break;
            case DType::u64:
                put(out, std::uint64_t{i});
                break;
        }
    }
    return out;
}

std::vector<SampleTensor> sample_tensors() {
    std::vector<SampleTensor> out;
    auto add = [&](std::string path, DType dtype, std::vector<std::uint64_t> shape) {
        std::uint64_t n = 1;
        for (auto d : shape) n *= d;
        auto data = gradient_like_values(dtype, n, static_cast<std::uint32_t>(out.size() + 1));
        out.push_back({std::move(path), dtype, std::move(shape), std::move(data)});
    };
    add("/step_00010/conv1.weight", DType::f32, {4, 1, 3, 3});
    add("/step_00010/conv1.bias", DType::f16, {4});
    add("/step_00010/fc.weight", DType::bf16, {3, 8});
    add("/step_00010/fc.bias", DType::f64, {3});
    add("/step_00010/step", DType::i64, {});
    add("/step_00010/mask", DType::bool8, {5});
    // An embedding gradient touches few rows: the zeros make lossless choose zstd.
    add("/step_00010/embed.weight", DType::f32, {16, 8});
    auto& embed = out.back().data;
    std::memset(embed.data() + 4 * 8 * 4, 0, embed.size() - 4 * 8 * 4);
    add("/step_00010/labels", DType::u8, {64});
    for (auto& b : out.back().data) b = static_cast<std::byte>(static_cast<std::uint8_t>(b) % 4);
    return out;
}

std::vector<Attribute> sample_attributes() {
    std::vector<Attribute> out;
    out.push_back(numeric_attribute("lr", DType::f64, {}, gradient_like_values(DType::f64, 1, 7)));
    out.push_back(
        numeric_attribute("steps", DType::i32, {2}, gradient_like_values(DType::i32, 2, 8)));
    Attribute fixed;
    fixed.name = "optimizer";
    fixed.kind = AttrKind::fixed_string;
    fixed.string_size = 4;
    fixed.strpad = 1;
    fixed.data = {'a', 'd', 'a', 'm'};
    out.push_back(fixed);
    Attribute vlen;
    vlen.name = "model";
    vlen.kind = AttrKind::vlen_string;
    vlen.cset = 1;
    vlen.shape = {2};
    for (const std::string s : {"cnn", "digits"}) {
        const auto n = static_cast<std::uint32_t>(s.size());
        for (int i = 0; i < 4; ++i) vlen.data.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
        vlen.data.insert(vlen.data.end(), s.begin(), s.end());
    }
    out.push_back(vlen);
    return out;
}

std::vector<std::string> usable_codec_specs() {
    // Parameterised forms of the codecs the project plans; a build lacking one skips it.
    std::vector<std::string> candidates = {"lossless",
                                           "lossless:level=19",
                                           "lossless:level=-7",
                                           "cast",
                                           "cast:to=bf16",
                                           "rangeq:bits=8",
                                           "rangeq:bits=3",
                                           "topk:density=0.1",
                                           "topk:density=0.3,values=f16",
                                           "threshold:density=0.1",
                                           "dgc:density=0.1",
                                           "sidco:density=0.1",
                                           "fft:density=0.25",
                                           "dct:density=0.25"};
    for (const CodecInfo& info : list_codecs()) candidates.emplace_back(info.name);
    std::vector<std::string> out;
    for (const std::string& text : candidates) {
        bool seen = false;
        for (const auto& s : out) seen = seen || s == text;
        if (seen) continue;
        try {
            validate_codec_spec(parse_codec_spec(text));
            out.push_back(text);
        } catch (const Error&) {
        }
    }
    return out;
}

TensorRecord encode_record(const SampleTensor& tensor, const std::string& spec) {
    const TensorMeta meta{tensor.path, tensor.dtype, tensor.shape};
    EncodedTensor encoded = encode_tensor(parse_codec_spec(spec), meta, tensor.data);
    TensorRecord record;
    record.path = tensor.path;
    record.dtype = tensor.dtype;
    record.shape = tensor.shape;
    record.codec_id = encoded.codec_id;
    record.codec_spec = encoded.spec;
    record.payload = std::move(encoded.payload);
    return record;
}

std::vector<std::uint8_t> sample_stream(const std::vector<std::string>& float_specs) {
    VectorSink sink;
    StreamWriter writer(sink);
    writer.write(GroupRecord{"/", sample_attributes()});
    writer.write(GroupRecord{"/step_00010", {sample_attributes()[0]}});
    std::size_t next_spec = 0;
    for (const SampleTensor& tensor : sample_tensors()) {
        TensorRecord record;
        if (is_float(tensor.dtype) && !float_specs.empty()) {
            try {
                record = encode_record(tensor, float_specs[next_spec++ % float_specs.size()]);
            } catch (const Error&) {
                record = encode_record(tensor, "lossless");
            }
        } else {
            record = encode_record(tensor, "lossless");
        }
        if (tensor.path.ends_with("conv1.weight")) record.attributes = {sample_attributes()[1]};
        writer.write(record);
    }
    // Specs the sample's float tensors did not reach get a small gradient each, so a mixed
    // stream holds a payload of every codec.
    for (std::uint32_t k = 0; next_spec < float_specs.size(); ++k) {
        const std::vector<std::uint64_t> shape{6, 8};
        SampleTensor extra{"/step_00020/w" + std::to_string(k), DType::f32, shape,
                           gradient_like_values(DType::f32, 48, 100 + k)};
        try {
            writer.write(encode_record(extra, float_specs[next_spec++]));
        } catch (const Error&) {
        }
    }
    writer.write(LinkRecord{"/latest", LinkKind::soft, "/step_00010", ""});
    writer.write(LinkRecord{"/previous", LinkKind::external, "/step_00000", "run-0.h5"});
    writer.finish();
    return std::move(sink.bytes);
}

}  // namespace gctest
