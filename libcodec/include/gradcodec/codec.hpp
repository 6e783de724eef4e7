#pragma once
// The codec API: encode one tensor to a payload, decode a payload back. A payload is
// self-describing given (codec id, dtype, shape): everything the decoder needs, including
// parameters chosen at encode time, travels inside it (format-spec/FORMAT.md, "Codecs").
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gradcodec/codec_spec.hpp"
#include "gradcodec/tensor.hpp"

// Everything declared here is the shared library's API; the rest of it stays hidden.
#pragma GCC visibility push(default)
namespace gradcodec {

// Where a codec's work runs, as an execution policy. `cuda` needs a build with GRADCODEC_CUDA
// and a usable device (see execution_problem). Under `cuda`, what the device implements runs
// there: encoding f32 tensors with fft (select=topk), topk or threshold, and decoding fft on
// f32; every other codec and dtype runs on the CPU. The payload format is the same either way,
// so either side decodes the other's payloads (fft coefficients may differ in the last bits,
// cuFFT and FFTW rounding differently).
enum class Execution : std::uint8_t { cpu, cuda };

struct EncodeOptions {
    bool allow_nonfinite = false;  // carry NaN/inf exactly instead of refusing them
    // Threads the call may use to split one large tensor (1: the calling thread only). The
    // payload bytes never depend on it. No thread outlives the call.
    unsigned threads = 1;
    Execution execution = Execution::cpu;
};

struct DecodeOptions {
    unsigned threads = 1;  // as EncodeOptions::threads; the decoded values never depend on it
    Execution execution = Execution::cpu;
};

// Empty when `execution` can run here; otherwise why not ("this gradcodec was built without
// CUDA", "no CUDA device: ..."). Never throws.
std::string execution_problem(Execution execution);

struct EncodedTensor {
    std::uint16_t codec_id = 0;
    std::string spec;  // the spec as validated, recorded for people and `inspect`
    std::vector<std::uint8_t> payload;
};

// How a payload's bits split, for `inspect`. Codecs without positions report only values.
struct PayloadStats {
    bool has_bit_split = false;
    std::uint64_t position_bits = 0;
    std::uint64_t value_bits = 0;
    double target_density = -1.0;  // < 0 when the codec has no density target
    // Scalars the payload carries, for codecs that keep a subset (sparse: kept values;
    // fft/dct: kept real scalars of the spectrum). Dense codecs leave has_carried false.
    bool has_carried = false;
    std::uint64_t carried = 0;
};

struct CodecInfo {
    std::string_view name;
    std::uint16_t id;
    std::string_view summary;
};

// What `--target` (and a search for a setting) may turn on a codec: its density, a ladder of
// integer settings (larger costs more and errs less), or the type it rounds to.
enum class KnobKind : std::uint8_t { none, density, ladder, type };

struct CodecKnob {
    KnobKind kind = KnobKind::none;
    std::string_view key;         // "density", "bits", "levels", "rank", "to"; empty for none
    std::span<const int> ladder;  // kind == ladder: the settings tried, increasing
    bool pointwise = false;       // meets abs= and rel= bounds (every value within a bound)
};

// One codec as the registry declares it: everything a front end (CLI help, target search,
// the HDF5 filter, Python) needs to know about it, read from the codec's one row. Strings
// point at static storage.
struct CodecCatalogEntry {
    std::string_view name;      // the spec's name, as --codec and Python take it
    std::uint16_t id;           // the payload's codec id (format-spec/FORMAT.md); rows may share
    std::string_view payload;   // the payload layout's name ("sparse" for the four selectors)
    std::string_view summary;   // one line: what it does and its keys
    std::string_view defaults;  // the keys a bare name means, "density=0.01, values=f16"; "" none
    bool floats_only;           // refuses integer tensors
    bool filter_ok;             // encodes any run of values on its own: usable per HDF5 chunk (h5z)
    bool draws_seed;            // without seed= every encode draws a fresh one
    CodecKnob knob;
};

// Every registered codec, in registry order.
std::vector<CodecCatalogEntry> codec_catalog();

// Throws Error(usage) naming the valid names, keys or values.
void validate_codec_spec(const CodecSpec& spec);

EncodedTensor encode_tensor(const CodecSpec& spec, const TensorMeta& meta,
                            std::span<const std::byte> data, const EncodeOptions& options = {});

// `out` must hold exactly meta.byte_count() bytes. Throws Error(damaged_stream) when the
// payload is inconsistent with the metadata.
void decode_tensor(std::uint16_t codec_id, const TensorMeta& meta,
                   std::span<const std::uint8_t> payload, std::span<std::byte> out);
void decode_tensor(std::uint16_t codec_id, const TensorMeta& meta,
                   std::span<const std::uint8_t> payload, std::span<std::byte> out,
                   const DecodeOptions& options);

PayloadStats describe_payload(std::uint16_t codec_id, const TensorMeta& meta,
                              std::span<const std::uint8_t> payload);

std::vector<CodecInfo> list_codecs();

struct CodecDef;
class ByteOutput;  // the library's output buffer (a caller's span, or a growing vector)

// What an encode can hand back besides its payload, for error feedback. Either span may be
// empty (not wanted); a non-empty one holds meta.byte_count() bytes in meta.dtype and overlaps
// neither `values`, the output buffer nor the other (encode refuses any overlap with
// Error(usage)). A sender that adds its own contribution to an average needs
// `decoded`: the values every receiver decodes from the payload, bit for bit, without a
// second decode.
struct Feedback {
    std::span<std::byte> residual;  // values - decoded: what the codec left out
    std::span<std::byte> decoded;   // decode(payload)
};

// The first pass over a tensor's pieces, for a codec that encodes in pieces only after it has
// seen every value (Codec::begin_survey). Pieces are added in element order, each as
// encode_piece will be given it; values the codec refuses (non-finite ones) throw here, naming
// the element's index in the whole tensor. Cheap to copy (copies share the state).
class PieceSurvey {
  public:
    // Throws Error(usage) on a piece of partial elements, past the tensor's end or not
    // starting on the codec's piece_alignment().
    void add(std::span<const std::byte> values);
    // Whether every element has been added. Both throw Error(usage) on a PieceSurvey that
    // did not come from begin_survey.
    bool complete() const;

  private:
    friend class Codec;
    std::shared_ptr<struct PieceSurveyState> state_;
};

// A codec compiled once from its spec: the name is resolved and the keys are parsed and
// validated into typed parameters, so encoding never parses a string again. A Codec is
// immutable and cheap to copy (copies share the compiled parameters); one Codec may be used
// by any number of threads at once.
//
// Scratch lives per thread inside the library, never in the Codec: zstd contexts, FFT plans
// and every working buffer (selected indices, sections, byte planes, spectra) come from a
// cache that each calling thread keeps across calls. So with threads == 1, encode_into and
// decode_into allocate nothing once a thread has made a call of the same size (a warm-up);
// a larger call grows the thread's cache, which holds up to about twice the largest call's
// working memory until the thread ends. With threads > 1 a call starts and joins its helper
// threads, which allocate. No Codec call leaves a thread running.
class Codec {
  public:
    // Throws Error(usage) on an unknown name, key or value, listing the valid ones, and when
    // options.execution cannot run here (execution_problem).
    static Codec compile(std::string_view spec, const EncodeOptions& options = {});
    static Codec compile(const CodecSpec& spec, const EncodeOptions& options = {});

    std::uint16_t id() const;         // the payload's codec id (format constant)
    std::string_view name() const;    // the spec's name: "topk", "dgc", ... (several share id 4)
    const std::string& spec() const;  // the spec as validated, e.g. "topk:density=0.01"
    const EncodeOptions& options() const;
    // The same compiled codec with another thread count (cheap: the parameters are shared).
    Codec with_threads(unsigned threads) const;

    // The most bytes encode can produce for this tensor (like ZSTD_compressBound): a buffer of
    // this size always suffices. Throws Error(bad_input) when the shape, or the bound itself,
    // overflows 64 bits.
    std::uint64_t max_encoded_size(const TensorMeta& meta) const;

    // The payload for `values` (meta.byte_count() bytes in meta.dtype). Throws Error(usage) for
    // a float-only codec on another dtype, Error(bad_input) on values the codec cannot carry.
    std::vector<std::uint8_t> encode(const TensorMeta& meta,
                                     std::span<const std::byte> values) const;

    // Writes the payload into `out` and returns its size. Throws Error(limit) when `out` is
    // smaller than the payload (never when out.size() >= max_encoded_size(meta)), Error(usage)
    // when `out` shares memory with `values` (here and in every overload below, which also
    // refuse residual or decoded buffers that share memory with `values`, `out` or each other).
    std::size_t encode_into(const TensorMeta& meta, std::span<const std::byte> values,
                            std::span<std::uint8_t> out) const;

    // The same, and writes `values - decode(payload)` into `residual` (meta.byte_count()
    // bytes, in meta.dtype): what the codec left out, for error feedback. It decodes the
    // payload once into `residual` and subtracts in place (no second buffer).
    std::size_t encode_into(const TensorMeta& meta, std::span<const std::byte> values,
                            std::span<std::uint8_t> out, std::span<std::byte> residual) const;

    // The same with both of error feedback's outputs (see Feedback): the payload is decoded
    // once, into feedback.decoded when it is wanted, and the residual subtracted from that.
    std::size_t encode_into(const TensorMeta& meta, std::span<const std::byte> values,
                            std::span<std::uint8_t> out, const Feedback& feedback) const;

    // Codecs whose payload is a prefix followed by each element's code in element order
    // (cast, rangeq) encode a tensor piece by piece, so that a caller can stream a large
    // tensor through small buffers instead of holding it and its payload whole. rangeq's
    // prefix depends on the whole tensor, so its pieces go through two passes: first every
    // piece into a PieceSurvey (begin_survey), then every piece into encode_piece with the
    // complete survey. topk's survey keeps only the elements that may be among the top k and
    // writes the whole payload, which the first piece given to encode_piece then carries (the
    // others carry nothing: a caller may stop once piecewise_size bytes are written). A
    // survey is needed where needs_piece_survey says so.
    //
    // The payload's size: for cast known before encoding, for rangeq and topk once the survey
    // is complete; nullopt for the codecs that encode whole tensors only, and for rangeq and
    // topk on f64 tensors or with Execution::cuda. Throws Error(usage) when a survey is needed and
    // `survey` is null, incomplete or another tensor's.
    std::optional<std::uint64_t> piecewise_size(const TensorMeta& meta,
                                                const PieceSurvey* survey = nullptr) const;
    bool needs_piece_survey(const TensorMeta& meta) const;
    // Throws Error(usage) when the codec needs no survey for `meta`.
    PieceSurvey begin_survey(const TensorMeta& meta) const;
    // Every piece starts on a multiple of this many elements (8 for rangeq, whose codes are
    // bit-packed; 1 for cast), except that the last piece may be shorter.
    std::uint64_t piece_alignment() const;

    // The payload bytes of elements [first, first + n) of the tensor `meta`, preceded by the
    // payload's prefix when first == 0, written into `out`; returns their size. `values` holds
    // exactly those n elements (n · dtype size bytes). Pieces encoded in element order
    // concatenate to encode(meta, every value); only the first piece may start at element 0,
    // so only an empty tensor has an empty first piece. Errors name the element's index in the
    // whole tensor. Throws Error(usage) when piecewise_size is nullopt, the piece lies outside
    // the tensor or does not start on piece_alignment(), the survey is missing as for
    // piecewise_size, or `out` shares memory with `values`; Error(limit) when `out` is too small
    // (for cast and rangeq, max_encoded_size of an n-element tensor always suffices; for any codec,
    // piecewise_size).
    std::size_t encode_piece(const TensorMeta& meta, std::uint64_t first,
                             std::span<const std::byte> values, std::span<std::uint8_t> out,
                             const PieceSurvey* survey = nullptr) const;

    // Decodes a payload of this codec's id into `out` (exactly meta.byte_count() bytes), with
    // this codec's threads and execution; the same as decode_tensor(id(), ...). Throws
    // Error(damaged_stream) when the payload is inconsistent with the metadata.
    void decode_into(const TensorMeta& meta, std::span<const std::uint8_t> payload,
                     std::span<std::byte> out) const;

  private:
    Codec() = default;
    void encode_to(const TensorMeta& meta, std::span<const std::byte> values,
                   ByteOutput& out) const;
    const CodecDef* def_ = nullptr;
    std::shared_ptr<const struct CompiledParams> params_;
    EncodeOptions options_;
};

// One tensor through a compiled codec, with the id and spec its record needs.
EncodedTensor encode_tensor(const Codec& codec, const TensorMeta& meta,
                            std::span<const std::byte> data);

// The name of the payload layout of this id (CodecCatalogEntry::payload); for id 4, shared by
// the threshold selectors, that is "sparse". "" when unknown.
std::string_view codec_name(std::uint16_t codec_id);

}  // namespace gradcodec
#pragma GCC visibility pop
