// Codec: a spec resolved and parsed once. Encoding goes through the codec's row in the
// registry with the typed parameters compile() produced; the free functions encode_tensor and
// validate_codec_spec are this with a throwaway Codec.
#include <any>
#include <cstring>
#include <optional>
#include <string>

#include "api/execution.hpp"
#include "codec/codec_def.hpp"
#include "codec/float_codec.hpp"
#include "codec/piece_coding.hpp"
#include "codec/residual.hpp"
#include "common/byte_io.hpp"
#include "common/parallel.hpp"
#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"

#if defined(GRADCODEC_HAVE_CUDA)
#include "device/device_dispatch.hpp"
#endif

namespace gradcodec {

struct CompiledParams {
    std::string spec;
    std::any params;
};

namespace {

void check_values(const CodecDef& codec, const TensorMeta& meta,
                  std::span<const std::byte> values) {
    if (values.size() != meta.byte_count()) {
        fail(ErrorKind::bad_input, meta.name + ": " + std::to_string(values.size()) +
                                       " bytes given, shape " + shape_to_string(meta.shape) +
                                       " needs " + std::to_string(meta.byte_count()));
    }
    if (codec.floats_only) require_float_tensor(codec.name, meta);
}

}  // namespace

Codec Codec::compile(std::string_view spec, const EncodeOptions& options) {
    return compile(parse_codec_spec(spec), options);
}

Codec Codec::compile(const CodecSpec& spec, const EncodeOptions& options) {
    Codec c;
    c.def_ = &codec_by_name(spec.name);
    c.params_ = std::make_shared<const CompiledParams>(
        CompiledParams{spec.to_string(), c.def_->compile(spec)});
    c.options_ = options;
    require_execution(options.execution);
    return c;
}

Codec Codec::with_threads(unsigned threads) const {
    Codec c = *this;
    c.options_.threads = threads;
    return c;
}

std::uint16_t Codec::id() const {
    return def_->id;
}
std::string_view Codec::name() const {
    return def_->name;
}
const std::string& Codec::spec() const {
    return params_->spec;
}
const EncodeOptions& Codec::options() const {
    return options_;
}

std::uint64_t Codec::max_encoded_size(const TensorMeta& meta) const {
    meta.element_count();  // throws on an overflowing shape
    return def_->payload_bound(params_->params, meta, options_);
}

void Codec::encode_to(const TensorMeta& meta, std::span<const std::byte> values,
                      ByteOutput& out) const {
    check_values(*def_, meta, values);
    const ThreadScope threads(options_.threads);
#if defined(GRADCODEC_HAVE_CUDA)
    if (options_.execution == Execution::cuda &&
        cuda::device_encodes(*def_, params_->params, meta)) {
        cuda::encode_host_tensor_on_device(*def_, params_->params, meta, values, options_, out);
        return;
    }
#endif
    def_->encode(params_->params, meta, values, options_, out);
}

std::vector<std::uint8_t> Codec::encode(const TensorMeta& meta,
                                        std::span<const std::byte> values) const {
    return written_bytes([&](ByteOutput& out) { encode_to(meta, values, out); });
}

std::size_t Codec::encode_into(const TensorMeta& meta, std::span<const std::byte> values,
                               std::span<std::uint8_t> out) const {
    ByteOutput sink(out, meta.name);
    encode_to(meta, values, sink);
    return sink.size();
}

std::size_t Codec::encode_into(const TensorMeta& meta, std::span<const std::byte> values,
                               std::span<std::uint8_t> out, std::span<std::byte> residual) const {
    const std::size_t size = encode_into(meta, values, out);
    write_residual(id(), meta, values, out.first(size), residual);
    return size;
}

std::size_t Codec::encode_into(const TensorMeta& meta, std::span<const std::byte> values,
                               std::span<std::uint8_t> out, const Feedback& feedback) const {
    const std::size_t size = encode_into(meta, values, out);
    write_feedback(id(), meta, values, out.first(size), feedback);
    return size;
}

std::optional<std::uint64_t> Codec::piecewise_size(const TensorMeta& meta) const {
    const PieceCoding* pieces = piece_coding(*def_);
    if (pieces == nullptr || (def_->floats_only && !is_float(meta.dtype))) return std::nullopt;
    meta.element_count();  // throws on an overflowing shape
    return pieces->payload_size(params_->params, meta);
}

std::size_t Codec::encode_piece(const TensorMeta& meta, std::uint64_t first,
                                std::span<const std::byte> values,
                                std::span<std::uint8_t> out) const {
    const PieceCoding* pieces = piece_coding(*def_);
    if (pieces == nullptr) {
        fail(ErrorKind::usage, meta.name + ": codec '" + std::string(def_->name) +
                                   "' encodes whole tensors only, not in pieces");
    }
    if (def_->floats_only) require_float_tensor(def_->name, meta);
    const std::uint64_t total = meta.element_count();
    const std::size_t element = dtype_size(meta.dtype);
    const std::uint64_t count = values.size() / element;
    if (values.size() % element != 0 || first > total || count > total - first) {
        fail(ErrorKind::usage, meta.name + ": a piece of " + std::to_string(values.size()) +
                                   " bytes from element " + std::to_string(first) +
                                   " is not a run of whole elements inside the tensor's " +
                                   std::to_string(total));
    }
    const ThreadScope threads(options_.threads);
    ByteOutput sink(out, meta.name);
    pieces->encode(params_->params, meta, first, values, sink);
    return sink.size();
}

void Codec::decode_into(const TensorMeta& meta, std::span<const std::uint8_t> payload,
                        std::span<std::byte> out) const {
    decode_tensor(id(), meta, payload, out, DecodeOptions{options_.threads, options_.execution});
}

}  // namespace gradcodec
