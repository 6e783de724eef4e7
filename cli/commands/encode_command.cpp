#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "commands/commands.hpp"
#include "commands/target_search.hpp"
#include "gradcodec/gradcodec.hpp"
#include "gradcodec_hdf5/byte_budget.hpp"
#include "gradcodec_hdf5/hdf5_dump.hpp"
#include "io/atomic_output.hpp"
#include "io/buffer_pool.hpp"
#include "io/direct_input.hpp"
#include "io/output_path.hpp"
#include "io/raw_input.hpp"
#include "io/stream_io.hpp"
#include "io/writeback_sink.hpp"
#include "support/cli_support.hpp"
#include "support/device_choice.hpp"
#include "support/exit_codes.hpp"
#include "support/ordered_jobs.hpp"
#include "support/unit_encoding.hpp"

namespace gradcodec::cli {

using namespace gradcodec::hdf5;  // HDF5 dumps: gradcodec_hdf5_io (hdf5/)
namespace {

const char* kRawTensorPath = "/data";

// A tensor encoded in pieces (Codec::encode_piece) is read and encoded this many bytes at a
// time: large enough for few calls and writes, small enough to stay in the CPU's caches and
// in the same few mapped pages from piece to piece.
constexpr std::size_t kPieceBytes = std::size_t{4} << 20;
// A dump's tensor read from its extent in the file (ExtentPieces) goes in smaller pieces, which
// stay in the encoding core's own cache: the whole-tensor read wrote every value out to memory
// and read it back, and on two threads the cores then shared the memory bandwidth. Measured on
// the ResNet-50 dump with cast (docs/results/benchmark-history.md, "Dump tensors in pieces").
constexpr std::size_t kExtentPieceBytes = std::size_t{256} << 10;

// Whether `c` can encode the tensor piece by piece (Codec::encode_piece).
bool encodes_in_pieces(const Codec& c, const TensorMeta& meta) {
    return c.needs_piece_survey(meta) || c.piecewise_size(meta);
}

std::span<std::uint8_t> as_u8(std::span<std::byte> bytes) {
    return {reinterpret_cast<std::uint8_t*>(bytes.data()), bytes.size()};
}

// Codec::encode_piece into a buffer of bytes; returns the bytes it wrote.
std::size_t encode_piece_into(const Codec& c, const TensorMeta& meta, std::uint64_t first,
                              std::span<const std::byte> piece, std::span<std::byte> out,
                              const PieceSurvey* survey) {
    return c.encode_piece(meta, first, piece, as_u8(out), survey);
}

// Encodes a tensor piece by piece from `input` (RawPieces or ExtentPieces) with a codec that
// encodes_in_pieces. A codec that must survey the tensor first (rangeq, topk) reads it twice,
// so only from input that can be reread. `begin(payload_size)` is called once before the first
// piece is encoded; `add(first, piece, survey)` encodes the piece starting at element `first`
// and returns the bytes it wrote. The second pass stops once the payload is written (a top-k's
// survey writes it, and its first piece carries it). False, with nothing read, for a survey
// over input that cannot be reread.
template <class Pieces, class Begin, class Add>
bool encode_pieces(const Codec& c, const TensorMeta& meta, Pieces& input, Begin&& begin,
                   Add&& add) {
    std::optional<PieceSurvey> survey;
    if (c.needs_piece_survey(meta)) {
        if (!input.rereadable()) return false;
        survey = c.begin_survey(meta);
        do {
            survey->add(input.next());
        } while (!input.done());
        input.rewind();
    }
    const PieceSurvey* surveyed = survey ? &*survey : nullptr;
    const std::uint64_t payload_size = *c.piecewise_size(meta, surveyed);
    begin(payload_size);
    const std::size_t element = dtype_size(meta.dtype);
    std::uint64_t first = 0;
    std::uint64_t written = 0;
    do {
        const std::span<const std::byte> piece = input.next();
        written += add(first, piece, surveyed);
        first += piece.size() / element;
    } while (!input.done() && written < payload_size);
    return true;
}

// A payload encoded into a pooled buffer (its first `size` bytes), its record prepared and
// checksummed on the encoding thread while the payload was still in cache.
struct InPlacePayload {
    PooledBuffer buffer;
    std::size_t size = 0;
    std::optional<PreparedRecord> record;
    bool matched = false;  // encoded by the codec asked for, not by lossless

    std::span<std::uint8_t> bytes() { return as_u8(buffer.bytes()).first(size); }
};

// A tensor on its way through: read, encoded (on any thread), then written in order.
struct TensorJob {
    std::string path;
    DType dtype;
    std::vector<std::uint64_t> shape;
    std::vector<Attribute> attributes;
    PooledBuffer data;                       // the values, read here through HDF5 or
    std::optional<FileExtent> extent;        // where the encoding thread reads them (DirectInput)
    EncodedTensor encoded;                   // a planned encode's payload, or
    std::optional<InPlacePayload> in_place;  // a direct one's
};

// Under --scope group or --target, the codec's setting and cut are fixed per unit before its
// first tensor is encoded: a step (group scope) or a tensor.
struct UnitPlanner {
    const EncodeArgs& args;
    const CodecSpec& spec;
    Scope scope;
    std::optional<Target> target;
    EncodeOptions options;
    hid_t root = -1;
    std::vector<DumpGroup> groups;  // HDF5 input only
    struct Active {
        std::optional<UnitEncoder> encoder;
        std::size_t left = 0;
    };
    std::map<std::string, Active> active;
    // What a tensor's own search chose, reported when its record is written: tensors are
    // searched side by side, the notes still come in stream order.
    struct Note {
        std::string line;
        bool lossless_fallback = false;
    };
    mutable std::mutex notes_mutex;
    mutable std::map<std::string, Note> notes;  // by path
    std::vector<std::string> fell_back;         // tensors a pointwise bound sent to lossless

    bool plans() const { return scope == Scope::group || target.has_value(); }
    // Every unit is one tensor: units are planned independently, on any thread.
    bool per_tensor() const { return scope == Scope::tensor || (target && is_pointwise(*target)); }

    TensorLoader loader(std::span<const UnitTensor> unit) const {
        return [this, unit](std::size_t i) { return load_tensor(args.input, root, unit[i]); };
    }

    EncodeOptions options_with(unsigned threads) const {
        EncodeOptions o = options;
        o.threads = threads;
        return o;
    }

    std::string unit_label(std::span<const UnitTensor> unit) const {
        return unit.size() == 1 ? unit[0].meta.name
                                : args.input + ": " + display_name(parent_group(unit[0].path));
    }

    // A step's setting, searched with every thread and reported at once (steps go in order).
    CodecSpec chosen_for_group(std::span<const UnitTensor> unit, const TensorLoader& load,
                               const EncodeOptions& o) const {
        if (!target) return spec;
        const TargetChoice choice = choose_for_target(spec, *target, Scope::group, unit, load, o);
        if (!args.quiet) {
            std::fprintf(stderr, "gradcodec: %s: --target %s chose %s\n", unit_label(unit).c_str(),
                         target->text.c_str(), choice.summary.c_str());
        }
        return choice.spec;
    }

    // A tensor held in memory as its own unit (tensor scope, raw input, pointwise targets).
    EncodedTensor encode_alone(const UnitTensor& t, std::span<const std::byte> data,
                               unsigned threads) const {
        const EncodeOptions o = options_with(threads);
        const TensorLoader from_memory = [data](std::size_t) {
            return std::vector<std::byte>(data.begin(), data.end());
        };
        const std::span<const UnitTensor> unit(&t, 1);
        CodecSpec chosen = spec;
        if (target) {
            TargetChoice choice =
                choose_for_target(spec, *target, Scope::tensor, unit, from_memory, o);
            const std::lock_guard lock(notes_mutex);
            notes[t.path] = {"gradcodec: " + unit_label(unit) + ": --target " + target->text +
                                 " chose " + choice.summary,
                             choice.lossless_fallback};
            chosen = std::move(choice.spec);
        }
        if (scope == Scope::group && has_group_scope(chosen)) {
            return UnitEncoder(chosen, Scope::group, unit, from_memory, o).encode(t.meta, data);
        }
        return encode_tensor(Codec::compile(chosen, o), t.meta, data);
    }

    EncodedTensor encode(const UnitTensor& t, std::span<const std::byte> data, unsigned threads) {
        if (per_tensor() || groups.empty()) return encode_alone(t, data, threads);
        const std::string group = parent_group(t.path);
        auto it = active.find(group);
        if (it == active.end()) {
            const auto g = std::find_if(groups.begin(), groups.end(),
                                        [&](const DumpGroup& d) { return d.path == group; });
            if (g == groups.end())
                fail(ErrorKind::bad_input,
                     args.input + ": " + t.path + " appeared during the walk");
            const EncodeOptions o = options_with(threads);
            const TensorLoader load = loader(g->tensors);
            const CodecSpec chosen = chosen_for_group(g->tensors, load, o);
            it = active.emplace(group, Active{}).first;
            it->second.encoder.emplace(chosen, Scope::group, g->tensors, load, o);
            it->second.left = g->tensors.size();
        }
        EncodedTensor e = it->second.encoder->encode(t.meta, data);
        if (--it->second.left == 0) active.erase(it);
        return e;
    }

    // When the tensor's record is written: its search's note, in stream order.
    void written(const std::string& path) {
        Note note;
        {
            const std::lock_guard lock(notes_mutex);
            const auto it = notes.find(path);
            if (it == notes.end()) return;
            note = std::move(it->second);
            notes.erase(it);
        }
        if (!args.quiet) std::fprintf(stderr, "%s\n", printable(note.line).c_str());
        if (note.lossless_fallback) fell_back.push_back(display_name(path));
    }

    // One line for every tensor a pointwise bound sent to lossless.
    void report_fallbacks() const {
        if (fell_back.empty() || args.quiet) return;
        constexpr std::size_t kNamed = 10;
        std::string names;
        for (std::size_t i = 0; i < std::min(fell_back.size(), kNamed); ++i)
            names += (i ? ", " : "") + fell_back[i];
        if (fell_back.size() > kNamed)
            names += ", ... (" + std::to_string(fell_back.size() - kNamed) + " more)";
        std::fprintf(stderr,
                     "gradcodec: %zu tensor%s could not meet %s with %s; written lossless: %s\n",
                     fell_back.size(), fell_back.size() == 1 ? "" : "s", target->text.c_str(),
                     spec.name.c_str(), printable(names).c_str());
    }
};

// The spec is compiled once: every tensor the codec applies to goes through `codec`, every
// other (integers, unselected) through `lossless`.
struct Encoder {
    const EncodeArgs& args;
    Codec codec;
    Codec lossless;
    StreamWriter& writer;
    UnitPlanner& planner;
    std::uint64_t matched = 0;

    // A planner of steps carries state from tensor to tensor (a step's cut), so its encodes run
    // one at a time, in order, each with every thread; so does the GPU. Tensors planned on
    // their own (--target at tensor scope, pointwise bounds) go side by side as direct ones do.
    bool serial() const {
        return codec.options().execution != Execution::cpu ||
               (planner.plans() && !planner.per_tensor());
    }

    bool applies(const std::string& path, DType dtype) const {
        return is_float(dtype) && selected(path, args.select);
    }
    TensorMeta meta_of(const std::string& path, DType dtype,
                       const std::vector<std::uint64_t>& shape) const {
        return {args.input + ": " + display_name(path), dtype, shape};
    }
    // Whether the tensor is encoded by a compiled codec alone (no planner chooses for it).
    bool direct(const std::string& path, DType dtype) const {
        return !(applies(path, dtype) && planner.plans());
    }

    TensorRecord record_of(const std::string& path, DType dtype,
                           const std::vector<std::uint64_t>& shape,
                           const std::vector<Attribute>& attributes, const Codec& c) const {
        return {path, dtype, shape, attributes, c.id(), c.spec(), {}};
    }

    // `run(codec)` with the codec of a direct tensor.
    template <class Run>
    auto with_codec(const std::string& path, DType dtype, unsigned threads, Run&& run) const {
        const Codec& chosen = applies(path, dtype) ? codec : lossless;
        try {
            return run(chosen.with_threads(threads));
        } catch (const Error& e) {
            // A codec that cannot carry non-finite values refuses them even with
            // --allow-nonfinite: the message must not send the user to the flag they passed.
            const std::string message = e.what();
            const std::size_t hint = message.find(" (allow_nonfinite carries");
            if (!args.allow_nonfinite || hint == std::string::npos) throw;
            fail(e.kind(), message.substr(0, hint) + "; codec '" + std::string(chosen.name()) +
                               "' cannot carry them even with --allow-nonfinite (lossless can)");
        }
    }

    EncodedTensor encode(const std::string& path, DType dtype,
                         const std::vector<std::uint64_t>& shape,
                         const std::vector<Attribute>& attributes, std::span<const std::byte> data,
                         unsigned threads) {
        const TensorMeta meta = meta_of(path, dtype, shape);
        if (!direct(path, dtype))
            return planner.encode(UnitTensor{path, meta, attributes}, data, threads);
        return with_codec(path, dtype, threads,
                          [&](const Codec& c) { return encode_tensor(c, meta, data); });
    }

    // A direct tensor encoded in place into a pooled buffer taken at the codec's bound (its
    // pages left untouched until the codec writes them), so no payload vector is made.
    InPlacePayload encode_in_place(const std::string& path, DType dtype,
                                   const std::vector<std::uint64_t>& shape,
                                   const std::vector<Attribute>& attributes,
                                   std::span<const std::byte> data, unsigned threads,
                                   BufferPool& buffers) const {
        const TensorMeta meta = meta_of(path, dtype, shape);
        return with_codec(path, dtype, threads, [&](const Codec& c) {
            InPlacePayload p{buffers.take(c.max_encoded_size(meta)), 0, {}, applies(path, dtype)};
            p.size = c.encode_into(meta, data, as_u8(p.buffer.bytes()));
            p.record.emplace(record_of(path, dtype, shape, attributes, c), p.size);
            p.record->add_payload(p.bytes());
            return p;
        });
    }

    // Writes the record from the pooled buffer, then hands the buffer back for the next tensor.
    void write_in_place(InPlacePayload payload, BufferPool& buffers) {
        matched += payload.matched ? 1 : 0;
        writer.write(std::move(*payload.record), payload.bytes());
        buffers.give_back(std::move(payload.buffer));
    }

    // A direct tensor whose codec encodes in pieces, read piece by piece through the RawPieces
    // that `open_input(piece_bytes)` opens, encoded into a buffer from `buffers` and written
    // as one record. False, with nothing read or written, for a codec or an input that cannot.
    bool encode_in_pieces(const std::string& path, const TensorMeta& meta, unsigned threads,
                          const std::function<RawPieces(std::size_t)>& open_input,
                          BufferPool& buffers) {
        return with_codec(path, meta.dtype, threads, [&](const Codec& c) {
            if (!encodes_in_pieces(c, meta)) return false;
            const std::uint64_t piece_elements = kPieceBytes / dtype_size(meta.dtype);
            RawPieces input = open_input(kPieceBytes);
            PooledBuffer out;
            const bool encoded = encode_pieces(
                c, meta, input,
                [&](std::uint64_t payload_size) {
                    out = buffers.take(std::max<std::uint64_t>(
                        c.max_encoded_size({meta.name, meta.dtype, {piece_elements}}),
                        payload_size));
                    writer.begin(record_of(path, meta.dtype, meta.shape, {}, c), payload_size);
                },
                [&](std::uint64_t first, std::span<const std::byte> piece,
                    const PieceSurvey* survey) {
                    const std::size_t size =
                        encode_piece_into(c, meta, first, piece, out.bytes(), survey);
                    writer.add_payload(as_u8(out.bytes()).first(size));
                    return size;
                });
            matched += encoded && applies(path, meta.dtype) ? 1 : 0;
            return encoded;
        });
    }

    // A dump's direct tensor whose codec encodes in pieces without a survey (cast), read from
    // its extent in the file piece by piece (ExtentPieces) and encoded into a pooled buffer of
    // the payload's size, on the calling thread; each piece is hashed for the record while it
    // is still in cache. nullopt, with nothing read, for any other codec. rangeq and top-k
    // would read the file twice, which cost them more than the whole read saves (measured in
    // docs/results/benchmark-history.md, "Dump tensors in pieces").
    std::optional<InPlacePayload> encode_extent_in_pieces(const std::string& path, DType dtype,
                                                          const std::vector<std::uint64_t>& shape,
                                                          const std::vector<Attribute>& attributes,
                                                          const DirectInput& input,
                                                          FileExtent extent,
                                                          BufferPool& buffers) const {
        const TensorMeta meta = meta_of(path, dtype, shape);
        return with_codec(path, dtype, 1, [&](const Codec& c) -> std::optional<InPlacePayload> {
            if (c.needs_piece_survey(meta) || !c.piecewise_size(meta)) return std::nullopt;
            PooledBuffer values =
                buffers.take(std::min<std::uint64_t>(kExtentPieceBytes, extent.size));
            ExtentPieces pieces(input, extent, meta.name, values.bytes());
            InPlacePayload p{{}, 0, {}, applies(path, dtype)};
            encode_pieces(
                c, meta, pieces,
                [&](std::uint64_t payload_size) {
                    p.buffer = buffers.take(payload_size);
                    p.record.emplace(record_of(path, dtype, shape, attributes, c), payload_size);
                },
                [&](std::uint64_t first, std::span<const std::byte> piece,
                    const PieceSurvey* survey) {
                    const std::size_t size = encode_piece_into(
                        c, meta, first, piece, p.buffer.bytes().subspan(p.size), survey);
                    p.record->add_payload(as_u8(p.buffer.bytes()).subspan(p.size, size));
                    p.size += size;
                    return size;
                });
            buffers.give_back(std::move(values));
            return p;
        });
    }

    void write(std::string path, DType dtype, std::vector<std::uint64_t> shape,
               std::vector<Attribute> attributes, EncodedTensor encoded) {
        matched += applies(path, dtype) ? 1 : 0;
        planner.written(path);
        writer.write(TensorRecord{std::move(path), dtype, std::move(shape), std::move(attributes),
                                  encoded.codec_id, std::move(encoded.spec),
                                  std::move(encoded.payload)});
    }
};

// --shape, or for a regular file without it the file's values as one dimension.
std::vector<std::uint64_t> raw_shape(const EncodeArgs& args, DType dtype) {
    if (!args.shape.empty()) return parse_shape(args.shape);
    struct stat st {};
    if (args.input == "-" || ::stat(args.input.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        fail(ErrorKind::usage,
             "--raw from " +
                 (args.input == "-" ? std::string("standard input") : "'" + args.input + "'") +
                 " needs --shape: only a regular file's size tells its length");
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size % dtype_size(dtype) != 0) {
        fail(ErrorKind::bad_input, args.input + ": " + std::to_string(size) +
                                       " bytes are not a whole number of " +
                                       std::string(dtype_name(dtype)) + " values");
    }
    return {size / dtype_size(dtype)};
}

void encode_raw(const EncodeArgs& args, Encoder& encoder, unsigned threads) {
    const DType dtype = parse_raw_dtype(args.raw);
    const TensorMeta meta{args.input, dtype, raw_shape(args, dtype)};
    ByteBudget(args.max_tensor_bytes)
        .check_tensor(args.input, meta.element_count(), dtype_size(meta.dtype));
    BufferPool buffers;
    const auto open_pieces = [&](std::size_t piece_bytes) {
        return RawPieces(args.input, meta.byte_count(), "the shape", piece_bytes, buffers);
    };
    if (encoder.direct(kRawTensorPath, meta.dtype) &&
        encoder.encode_in_pieces(kRawTensorPath, meta, threads, open_pieces, buffers)) {
        return;
    }
    const RawInput input(args.input, meta.byte_count(), "the shape");
    if (encoder.direct(kRawTensorPath, meta.dtype)) {
        encoder.write_in_place(encoder.encode_in_place(kRawTensorPath, meta.dtype, meta.shape, {},
                                                       input.bytes(), threads, buffers),
                               buffers);
        return;
    }
    EncodedTensor encoded =
        encoder.encode(kRawTensorPath, meta.dtype, meta.shape, {}, input.bytes(), threads);
    encoder.write(kRawTensorPath, meta.dtype, meta.shape, {}, std::move(encoded));
}

// Datasets are walked one at a time (HDF5 is not thread-safe) and encoded on `threads`
// threads; values stored as plain bytes in the file are read by the encoding thread, the rest
// here with H5Dread. The GPU path and planned encodes (--scope group, --target) take
// tensors one at a time, each with all the threads.
void encode_hdf5(const EncodeArgs& args, Encoder& encoder, StreamWriter& writer, unsigned threads) {
    const unsigned per_tensor = encoder.serial() ? threads : 1;
    Progress progress("encode", args.quiet);
    BufferPool buffers;
    Hid file = open_dump(args.input);
    const DirectInput direct(file.get(), args.input);
    if (progress.enabled()) progress.set_total(count_datasets(file.get()));
    if (encoder.planner.plans()) {
        encoder.planner.root = file.get();
        encoder.planner.groups = float_groups(args.input, file.get(), args.select);
    }
    // Last, so that its threads are joined before anything they use is destroyed. Finishes
    // only append to the stream, so any thread may write them while this one reads on.
    OrderedJobs jobs(encoder.serial() ? 1 : threads, FinishOn::any_thread);
    try {
        walk_dump(
            args.input, file.get(),
            {[&](const GroupRecord& g) { jobs.add([&writer, g] { writer.write(g); }); },
             [&](const DumpDataset& d) {
                 progress.tick(display_name(d.path));
                 auto job = std::make_shared<TensorJob>(TensorJob{
                     d.path, d.dtype, d.shape, d.attributes, {}, direct.extent_of(d), {}, {}});
                 if (job->extent) {
                     direct.prefetch(*job->extent);
                 } else {
                     job->data = buffers.take(d.byte_count());
                     d.read_into(args.input, job->data.bytes());
                 }
                 jobs.add(
                     d.byte_count(),
                     [&encoder, &direct, &buffers, &args, job, per_tensor](unsigned t) {
                         const unsigned job_threads = std::max(t, per_tensor);
                         // One thread's tensor goes piece by piece where its codec can; a
                         // tensor with several threads is split across them whole.
                         if (job->extent && job_threads == 1 &&
                             encoder.direct(job->path, job->dtype)) {
                             job->in_place = encoder.encode_extent_in_pieces(
                                 job->path, job->dtype, job->shape, job->attributes, direct,
                                 *job->extent, buffers);
                             if (job->in_place) return;
                         }
                         std::span<const std::byte> values = job->data.bytes();
                         if (job->extent) {
                             values = direct.values(*job->extent, job->data, buffers,
                                                    args.input + ": " + job->path);
                         }
                         if (encoder.direct(job->path, job->dtype)) {
                             job->in_place = encoder.encode_in_place(job->path, job->dtype,
                                                                     job->shape, job->attributes,
                                                                     values, job_threads, buffers);
                         } else {
                             job->encoded = encoder.encode(job->path, job->dtype, job->shape,
                                                           job->attributes, values, job_threads);
                         }
                         // The values are not needed for writing: the next tensor may reuse
                         // them.
                         if (job->extent) direct.release(*job->extent);
                         buffers.give_back(std::move(job->data));
                     },
                     [&encoder, &buffers, job] {
                         if (job->in_place) {
                             encoder.write_in_place(std::move(*job->in_place), buffers);
                             return;
                         }
                         encoder.write(std::move(job->path), job->dtype, std::move(job->shape),
                                       std::move(job->attributes), std::move(job->encoded));
                     });
             },
             [&](const LinkRecord& l) { jobs.add([&writer, l] { writer.write(l); }); },
             [&](const TypedDataset& d) {
                 progress.tick(display_name(d.path));
                 auto record = std::make_shared<TypedRecord>(
                     d.read(args.input, ByteBudget(args.max_tensor_bytes).tensor_cap()));
                 jobs.add([&writer, record] { writer.write(*record); });
             },
             [&] { jobs.last_job_next(); }},
            DumpLimits{ByteBudget(args.max_tensor_bytes), args.allow_external,
                       args.skip_unsupported});
        buffers.stop_keeping();  // the last tensor is queued
    } catch (...) {
        jobs.flush();  // an earlier tensor's error comes first, as it would on one thread
        throw;
    }
    jobs.flush();
}

void encode_to(const EncodeArgs& args, const CodecSpec& spec, Execution execution, ByteSink& sink) {
    StreamWriter writer(sink);
    const EncodeOptions options{args.allow_nonfinite, 1, execution};
    UnitPlanner planner{args, spec, parse_scope(args.scope), std::nullopt, options, -1, {}, {}, {},
                        {},   {}};
    if (!args.target.empty()) planner.target = parse_target(args.target);
    Encoder encoder{args, Codec::compile(spec, options), Codec::compile("lossless", options),
                    writer, planner};
    const unsigned threads = resolve_threads(args.threads);
    if (!args.raw.empty()) {
        encode_raw(args, encoder, threads);
    } else {
        encode_hdf5(args, encoder, writer, threads);
    }
    writer.finish();
    planner.report_fallbacks();
    if (!args.select.empty() && encoder.matched == 0 && !args.quiet) {
        std::fprintf(stderr,
                     "gradcodec: warning: --select matched no float dataset; everything was stored "
                     "lossless\n");
    }
}

}  // namespace

int run_encode(const EncodeArgs& args) {
    const CodecSpec spec = parse_codec_spec(args.codec);
    validate_codec_spec(spec);
    parse_scope(args.scope);
    if (!args.target.empty()) check_target_applies(spec, parse_target(args.target));
    const Execution execution = choose_execution(args.device);
    if (args.raw.empty() && !args.shape.empty())
        fail(ErrorKind::usage, "--shape applies to --raw input only");
    if (!args.raw.empty() && !args.select.empty())
        fail(ErrorKind::usage, "--select applies to HDF5 input only");
    // -T 1 runs everything on the calling thread.
    const bool own_sync_thread = resolve_threads(args.threads) > 1;
    if (check_output_path(args.input, args.output, args.force) == OutputMode::in_place) {
        FilePtr out = open_in_place(args.output, "a binary stream");
        WritebackSink sink(out.get(), args.output, own_sync_thread);
        encode_to(args, spec, execution, sink);
        sink.finish();
        finish_in_place(out.get(), args.output);
        return kExitOk;
    }
    AtomicOutput out(args.output, args.force);
    WritebackSink sink(out.file(), args.output, own_sync_thread);
    encode_to(args, spec, execution, sink);
    sink.finish();
    out.commit();
    return kExitOk;
}

}  // namespace gradcodec::cli
