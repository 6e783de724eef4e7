#include "support/unit_encoding.hpp"

#include <chrono>

#include "support/record_bytes.hpp"

namespace gradcodec::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Scope parse_scope(const std::string& text) {
    if (text == "tensor") return Scope::tensor;
    if (text == "group") return Scope::group;
    fail(ErrorKind::usage, "--scope " + text + ": expected tensor or group");
}

UnitEncoder::UnitEncoder(const CodecSpec& spec, Scope scope, std::span<const UnitTensor> unit,
                         const TensorLoader& load, const EncodeOptions& options) {
    if (scope != Scope::group || !has_group_scope(spec)) {
        codec_.emplace(Codec::compile(spec, options));
        return;
    }
    std::vector<TensorMeta> metas;
    for (const UnitTensor& t : unit) metas.push_back(t.meta);
    group_.emplace(spec, plan_group_cut(spec, metas, load, options), options);
}

EncodedTensor UnitEncoder::encode(const TensorMeta& meta, std::span<const std::byte> data) {
    return group_ ? group_->encode(meta, data) : encode_tensor(*codec_, meta, data);
}

UnitMeasure measure_unit(const CodecSpec& spec, Scope scope, std::span<const UnitTensor> unit,
                         const TensorLoader& load, const EncodeOptions& options, bool decode) {
    UnitMeasure m;
    MetricsAccumulator metrics;
    auto start = std::chrono::steady_clock::now();
    UnitEncoder encoder(spec, scope, unit, load, options);
    m.encode_seconds += seconds_since(start);
    for (std::size_t i = 0; i < unit.size(); ++i) {
        const UnitTensor& t = unit[i];
        const std::vector<std::byte> data = load(i);
        start = std::chrono::steady_clock::now();
        EncodedTensor e = encoder.encode(t.meta, data);
        m.encode_seconds += seconds_since(start);
        if (decode) {
            std::vector<std::byte> decoded(data.size());
            start = std::chrono::steady_clock::now();
            decode_tensor(e.codec_id, t.meta, e.payload, decoded, DecodeOptions{options.threads});
            m.decode_seconds += seconds_since(start);
            metrics.add(t.meta.dtype, data, decoded);
        }
        m.elements += t.meta.element_count();
        m.bytes_in += data.size();
        m.record_bytes +=
            record_bytes(TensorRecord{t.path, t.meta.dtype, t.meta.shape, t.attributes, e.codec_id,
                                      std::move(e.spec), std::move(e.payload)});
    }
    m.metrics = metrics.result();
    return m;
}

}  // namespace gradcodec::cli
