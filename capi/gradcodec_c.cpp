// The C API: each entry point catches everything and turns it into a status plus a
// thread-local message, so no exception crosses into C.
#include "gradcodec.h"

#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "gradcodec/codec.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/frame.hpp"

struct gc_codec {
    gradcodec::Codec codec;
};

namespace {

thread_local std::string last_error;

gc_status status_of(gradcodec::ErrorKind kind) {
    switch (kind) {
        case gradcodec::ErrorKind::usage:
            return GC_ERROR_USAGE;
        case gradcodec::ErrorKind::bad_input:
            return GC_ERROR_BAD_INPUT;
        case gradcodec::ErrorKind::damaged_stream:
            return GC_ERROR_DAMAGED;
        case gradcodec::ErrorKind::limit:
            return GC_ERROR_LIMIT;
        case gradcodec::ErrorKind::io:
            return GC_ERROR_INTERNAL;
    }
    return GC_ERROR_INTERNAL;
}

gc_status failure(gc_status status, const std::string& message) {
    last_error = message;
    return status;
}

// Runs `body`, mapping what it throws to a status and this thread's message.
template <typename Body>
gc_status guarded(Body&& body) {
    try {
        last_error.clear();
        return body();
    } catch (const gradcodec::Error& e) {
        return failure(status_of(e.kind()), e.what());
    } catch (const std::bad_alloc&) {
        return failure(GC_ERROR_NO_MEMORY, "out of memory");
    } catch (const std::exception& e) {
        return failure(GC_ERROR_INTERNAL, e.what());
    } catch (...) {
        return failure(GC_ERROR_INTERNAL, "unknown error");
    }
}

bool valid_dtype(gc_dtype dtype) {
    return dtype == GC_F16 || dtype == GC_BF16 || dtype == GC_F32 || dtype == GC_F64;
}

gradcodec::TensorMeta flat_meta(gc_dtype dtype, size_t n) {
    return {"tensor", static_cast<gradcodec::DType>(dtype), {static_cast<std::uint64_t>(n)}};
}

bool overlap(const void* a, const void* b, std::size_t bytes) {
    const auto x = reinterpret_cast<std::uintptr_t>(a);
    const auto y = reinterpret_cast<std::uintptr_t>(b);
    return bytes != 0 && x < y + bytes && y < x + bytes;
}

gc_status encode(gc_codec* codec, gc_dtype dtype, const void* src, size_t n, void* dst,
                 size_t dst_capacity, size_t* written, void* residual, void* decoded) {
    return guarded([&]() -> gc_status {
        if (!codec || !written || (n != 0 && !src) || (dst_capacity != 0 && !dst)) {
            return failure(GC_ERROR_USAGE, "gc_encode_frame: a required pointer is NULL");
        }
        if (!valid_dtype(dtype)) return failure(GC_ERROR_USAGE, "unknown gc_dtype");
        const gradcodec::TensorMeta meta = flat_meta(dtype, n);
        const std::size_t bytes = meta.byte_count();
        if (decoded &&
            (overlap(decoded, src, bytes) || (residual && overlap(decoded, residual, bytes)))) {
            return failure(GC_ERROR_USAGE,
                           "gc_encode_frame_feedback: decoded overlaps src or residual");
        }
        // The library refuses every other overlap; this one it would not see once the values
        // are copied below (a dst overlapping src is a frame sealed over its own input).
        if (dst_capacity != 0 && bytes != 0 &&
            reinterpret_cast<std::uintptr_t>(dst) < reinterpret_cast<std::uintptr_t>(src) + bytes &&
            reinterpret_cast<std::uintptr_t>(src) <
                reinterpret_cast<std::uintptr_t>(dst) + dst_capacity) {
            return failure(GC_ERROR_USAGE, "gc_encode_frame: dst overlaps src");
        }
        std::span<const std::byte> values(static_cast<const std::byte*>(src), bytes);
        const std::span<std::uint8_t> out(static_cast<std::uint8_t*>(dst), dst_capacity);
        gradcodec::Feedback feedback;
        if (residual) feedback.residual = {static_cast<std::byte*>(residual), bytes};
        if (decoded) feedback.decoded = {static_cast<std::byte*>(decoded), bytes};
        // The residual may alias src: encode from a copy in that case.
        std::vector<std::byte> copy;
        if (residual && overlap(residual, src, bytes)) {
            copy.assign(values.begin(), values.end());
            values = copy;
        }
        try {
            *written = gradcodec::encode_frame_into(codec->codec, meta, values, out, feedback);
        } catch (const gradcodec::Error& e) {
            if (e.kind() == gradcodec::ErrorKind::limit)
                return failure(GC_ERROR_DST_TOO_SMALL, e.what());
            throw;
        }
        return GC_OK;
    });
}

}  // namespace

extern "C" {

gc_status gc_codec_open(const char* spec, gc_codec** out) {
    return gc_codec_open_with(spec, nullptr, out);
}

gc_status gc_codec_open_with(const char* spec, const gc_options* options, gc_codec** out) {
    return guarded([&]() -> gc_status {
        if (!spec || !out)
            return failure(GC_ERROR_USAGE, "gc_codec_open: spec and out must not be NULL");
        *out = nullptr;
        gradcodec::EncodeOptions o;
        if (options) {
            o.allow_nonfinite = options->allow_nonfinite != 0;
            o.threads = options->threads == 0 ? 1 : options->threads;
            if (options->execution != GC_EXECUTION_CPU && options->execution != GC_EXECUTION_CUDA)
                return failure(GC_ERROR_USAGE, "gc_codec_open: unknown execution " +
                                                   std::to_string(options->execution));
            o.execution = options->execution == GC_EXECUTION_CUDA ? gradcodec::Execution::cuda
                                                                  : gradcodec::Execution::cpu;
        }
        *out = new gc_codec{gradcodec::Codec::compile(std::string_view(spec), o)};
        return GC_OK;
    });
}

void gc_codec_close(gc_codec* codec) {
    delete codec;
}

const char* gc_codec_spec(const gc_codec* codec) {
    return codec ? codec->codec.spec().c_str() : "";
}

size_t gc_frame_bound(const gc_codec* codec, gc_dtype dtype, size_t n) {
    size_t bound = 0;
    guarded([&]() -> gc_status {
        if (!codec || !valid_dtype(dtype))
            return failure(GC_ERROR_USAGE, "gc_frame_bound: bad codec or dtype");
        // max_frame_size throws Error(bad_input) when the bound overflows 64 bits: bound stays 0.
        const std::uint64_t frame = gradcodec::max_frame_size(codec->codec, flat_meta(dtype, n));
        if (frame > SIZE_MAX) return failure(GC_ERROR_LIMIT, "gc_frame_bound: over SIZE_MAX");
        bound = static_cast<size_t>(frame);
        return GC_OK;
    });
    return bound;
}

gc_status gc_encode_frame(gc_codec* codec, gc_dtype dtype, const void* src, size_t n, void* dst,
                          size_t dst_capacity, size_t* written) {
    return encode(codec, dtype, src, n, dst, dst_capacity, written, nullptr, nullptr);
}

gc_status gc_encode_frame_residual(gc_codec* codec, gc_dtype dtype, const void* src, size_t n,
                                   void* dst, size_t dst_capacity, size_t* written,
                                   void* residual) {
    if (!residual) return failure(GC_ERROR_USAGE, "gc_encode_frame_residual: residual is NULL");
    return encode(codec, dtype, src, n, dst, dst_capacity, written, residual, nullptr);
}

gc_status gc_encode_frame_feedback(gc_codec* codec, gc_dtype dtype, const void* src, size_t n,
                                   void* dst, size_t dst_capacity, size_t* written, void* residual,
                                   void* decoded) {
    return encode(codec, dtype, src, n, dst, dst_capacity, written, residual, decoded);
}

gc_status gc_frame_info(const void* frame, size_t size, gc_dtype* dtype, size_t* n) {
    return guarded([&]() -> gc_status {
        if (!frame && size != 0) return failure(GC_ERROR_USAGE, "gc_frame_info: frame is NULL");
        const gradcodec::FrameInfo info =
            gradcodec::read_frame_info({static_cast<const std::uint8_t*>(frame), size});
        if (!gradcodec::is_float(info.dtype)) {
            return failure(GC_ERROR_USAGE, "frame holds " +
                                               std::string(gradcodec::dtype_name(info.dtype)) +
                                               " values, which the C API does not expose");
        }
        if (dtype) *dtype = static_cast<gc_dtype>(info.dtype);
        if (n) *n = static_cast<size_t>(info.element_count);
        return GC_OK;
    });
}

gc_status gc_decode_frame(const void* frame, size_t size, void* dst, size_t dst_bytes) {
    return guarded([&]() -> gc_status {
        if ((!frame && size != 0) || (!dst && dst_bytes != 0)) {
            return failure(GC_ERROR_USAGE, "gc_decode_frame: a required pointer is NULL");
        }
        gradcodec::decode_frame_into({static_cast<const std::uint8_t*>(frame), size},
                                     {static_cast<std::byte*>(dst), dst_bytes});
        return GC_OK;
    });
}

const char* gc_status_string(gc_status status) {
    switch (status) {
        case GC_OK:
            return "ok";
        case GC_ERROR_USAGE:
            return "bad argument or codec spec";
        case GC_ERROR_BAD_INPUT:
            return "values cannot be encoded as asked";
        case GC_ERROR_DAMAGED:
            return "damaged or unsupported frame";
        case GC_ERROR_LIMIT:
            return "a size exceeds a limit";
        case GC_ERROR_DST_TOO_SMALL:
            return "destination buffer too small";
        case GC_ERROR_NO_MEMORY:
            return "out of memory";
        case GC_ERROR_INTERNAL:
            return "internal error";
        default:
            return "unknown status";
    }
}

const char* gc_last_error(void) {
    return last_error.c_str();
}

size_t gc_codec_count(void) {
    return gradcodec::list_codecs().size();
}

const char* gc_codec_name(size_t index) {
    static const std::vector<gradcodec::CodecInfo> codecs = gradcodec::list_codecs();
    // Names are string literals in the registry, so data() is NUL-terminated and static.
    return index < codecs.size() ? codecs[index].name.data() : nullptr;
}

unsigned gc_version_number(void) {
    return GRADCODEC_VERSION_NUMBER;
}

}  // extern "C"
