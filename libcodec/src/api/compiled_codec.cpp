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
    check_separate_buffers(meta, values, out);
    ByteOutput sink(out, meta.name);
    encode_to(meta, values, sink);
    return sink.size();
}

std::size_t Codec::encode_into(const TensorMeta& meta, std::span<const std::byte> values,
                               std::span<std::uint8_t> out, std::span<std::byte> residual) const {
    check_separate_buffers(meta, values, out, Feedback{residual, {}});
    const std::size_t size = encode_into(meta, values, out);
    write_residual(id(), meta, values, out.first(size), residual);
    return size;
}

std::size_t Codec::encode_into(const TensorMeta& meta, std::span<const std::byte> values,
                               std::span<std::uint8_t> out, const Feedback& feedback) const {
    check_separate_buffers(meta, values, out, feedback);
    const std::size_t size = encode_into(meta, values, out);
    write_feedback(id(), meta, values, out.first(size), feedback);
    return size;
}

struct PieceSurveyState {
    const PieceCoding* coding;
    std::shared_ptr<const CompiledParams> params;
    TensorMeta meta;
    EncodeOptions options;
    std::uint64_t next = 0;  // the first element of the next piece
    std::any survey;
};

namespace {

// The codec's piece coding for this tensor, or nullptr when it encodes the tensor whole. A
// survey codec (rangeq, topk) leaves f64 to the whole encode, which checks the values' range as it
// narrows them, and the device to its own encode.
const PieceCoding* pieces_for(const CodecDef& codec, const TensorMeta& meta,
                              const EncodeOptions& options) {
    const PieceCoding* pieces = piece_coding(codec);
    if (pieces == nullptr || (codec.floats_only && !is_float(meta.dtype))) return nullptr;
    if (pieces->begin_survey != nullptr &&
        (meta.dtype == DType::f64 || options.execution != Execution::cpu)) {
        return nullptr;
    }
    return pieces;
}

// Checks that a piece of `bytes` bytes from element `first` lies inside the tensor, is whole
// elements and starts where the codec's pieces may; returns its element count.
std::uint64_t check_piece(const TensorMeta& meta, std::uint64_t first, std::size_t bytes,
                          std::uint64_t alignment) {
    const std::uint64_t total = meta.element_count();
    const std::size_t element = dtype_size(meta.dtype);
    const std::uint64_t count = bytes / element;
    if (bytes % element != 0 || first > total || count > total - first || first % alignment != 0) {
        fail(ErrorKind::usage, meta.name + ": a piece of " + std::to_string(bytes) +
                                   " bytes from element " + std::to_string(first) +
                                   " is not a run of whole elements inside the tensor's " +
                                   std::to_string(total) + ", starting on a multiple of " +
                                   std::to_string(alignment));
    }
    return count;
}

// The complete survey's state for a codec that needs one; null for one that needs none.
const std::any* complete_survey(const PieceCoding& pieces, const TensorMeta& meta,
                                const PieceSurveyState* state,
                                const std::shared_ptr<const CompiledParams>& params) {
    if (pieces.begin_survey == nullptr) return nullptr;
    if (state == nullptr || state->params != params || state->meta.name != meta.name ||
        state->meta.shape != meta.shape || state->meta.dtype != meta.dtype) {
        fail(ErrorKind::usage, meta.name +
                                   ": this codec encodes in pieces only after a survey "
                                   "of the same tensor (Codec::begin_survey)");
    }
    if (state->next != meta.element_count()) {
        fail(ErrorKind::usage, meta.name + ": the survey has seen " + std::to_string(state->next) +
                                   " of " + std::to_string(meta.element_count()) + " elements");
    }
    return &state->survey;
}

PieceSurveyState& state_of(const std::shared_ptr<PieceSurveyState>& state) {
    if (state == nullptr) fail(ErrorKind::usage, "a PieceSurvey comes from Codec::begin_survey");
    return *state;
}

}  // namespace

void PieceSurvey::add(std::span<const std::byte> values) {
    PieceSurveyState& s = state_of(state_);
    const std::uint64_t count = check_piece(s.meta, s.next, values.size(), s.coding->alignment);
    const ThreadScope threads(s.options.threads);
    s.coding->survey(s.survey, s.meta, s.next, values);
    s.next += count;
}

bool PieceSurvey::complete() const {
    const PieceSurveyState& s = state_of(state_);
    return s.next == s.meta.element_count();
}

bool Codec::needs_piece_survey(const TensorMeta& meta) const {
    const PieceCoding* pieces = pieces_for(*def_, meta, options_);
    return pieces != nullptr && pieces->begin_survey != nullptr;
}

PieceSurvey Codec::begin_survey(const TensorMeta& meta) const {
    const PieceCoding* pieces = pieces_for(*def_, meta, options_);
    if (pieces == nullptr || pieces->begin_survey == nullptr) {
        fail(ErrorKind::usage, meta.name + ": codec '" + std::string(def_->name) +
                                   "' takes no survey for this tensor");
    }
    PieceSurvey survey;
    survey.state_ = std::make_shared<PieceSurveyState>(PieceSurveyState{
        pieces, params_, meta, options_, 0, pieces->begin_survey(params_->params, meta, options_)});
    return survey;
}

std::uint64_t Codec::piece_alignment() const {
    const PieceCoding* pieces = piece_coding(*def_);
    return pieces != nullptr ? pieces->alignment : 1;
}

std::optional<std::uint64_t> Codec::piecewise_size(const TensorMeta& meta,
                                                   const PieceSurvey* survey) const {
    meta.element_count();  // throws on an overflowing shape
    const PieceCoding* pieces = pieces_for(*def_, meta, options_);
    if (pieces == nullptr) return std::nullopt;
    return pieces->payload_size(
        params_->params, meta,
        complete_survey(*pieces, meta, survey != nullptr ? survey->state_.get() : nullptr,
                        params_));
}

std::size_t Codec::encode_piece(const TensorMeta& meta, std::uint64_t first,
                                std::span<const std::byte> values, std::span<std::uint8_t> out,
                                const PieceSurvey* survey) const {
    if (def_->floats_only) require_float_tensor(def_->name, meta);
    const PieceCoding* pieces = pieces_for(*def_, meta, options_);
    if (pieces == nullptr) {
        fail(ErrorKind::usage, meta.name + ": codec '" + std::string(def_->name) +
                                   "' encodes this tensor whole only, not in pieces");
    }
    check_piece(meta, first, values.size(), pieces->alignment);
    check_separate_buffers(meta, values, out);
    const std::any* state =
        complete_survey(*pieces, meta, survey != nullptr ? survey->state_.get() : nullptr, params_);
    const ThreadScope threads(options_.threads);
    ByteOutput sink(out, meta.name);
    pieces->encode(params_->params, meta, first, values, state, sink);
    return sink.size();
}

void Codec::decode_into(const TensorMeta& meta, std::span<const std::uint8_t> payload,
                        std::span<std::byte> out) const {
    decode_tensor(id(), meta, payload, out, DecodeOptions{options_.threads, options_.execution});
}

}  // namespace gradcodec
