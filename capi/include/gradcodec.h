/* gradcodec C API: encode and decode single-tensor frames with gradcodec's codecs.
 *
 * A C11 interface over the C++ library, for any language that binds C (ctypes, cffi, Rust,
 * Julia). No C++ exception crosses it: every failure is a gc_status, and gc_last_error()
 * gives a message naming what was wrong.
 *
 * Ownership: gc_codec_open allocates a codec that the caller releases with gc_codec_close.
 * Every buffer is the caller's; the library keeps no pointer to one after a call returns.
 *
 * Thread safety: a gc_codec is immutable once opened. Any number of threads may encode with
 * one codec at the same time. Messages for gc_last_error are kept per thread. No function
 * starts a thread.
 *
 * Frames (format-spec/FRAME.md) are self-describing: header (magic, version, dtype, codec id,
 * element count), the codec's payload, and an XXH3-64 checksum. A damaged frame is reported
 * as GC_ERROR_DAMAGED, never read past its size.
 */
#ifndef GRADCODEC_H
#define GRADCODEC_H

#include <stddef.h>

#include "gradcodec/version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define GC_API
#else
#define GC_API __attribute__((visibility("default")))
#endif

typedef struct gc_codec gc_codec;

/* Element types of a frame. The values are the format's dtype codes. */
typedef enum { GC_F16 = 1, GC_BF16 = 2, GC_F32 = 3, GC_F64 = 4 } gc_dtype;

/* Status codes are stable: new codes may be added, none will change meaning. */
typedef int gc_status;
enum {
    GC_OK = 0,
    GC_ERROR_USAGE = 1,         /* bad argument or codec spec (unknown name, key or value) */
    GC_ERROR_BAD_INPUT = 2,     /* the values cannot be encoded as asked (NaN, overflow) */
    GC_ERROR_DAMAGED = 3,       /* not a frame, damaged, or of an unsupported version */
    GC_ERROR_LIMIT = 4,         /* a size exceeds a limit */
    GC_ERROR_DST_TOO_SMALL = 5, /* the destination buffer cannot hold the result */
    GC_ERROR_NO_MEMORY = 6,     /* an allocation failed */
    GC_ERROR_INTERNAL = 7       /* a bug in gradcodec: please report it */
};

/* Where a codec runs (the execution policy). GC_EXECUTION_CUDA runs what the GPU path
 * implements (f32 with fft select=topk, topk, threshold) on the device and the rest on the
 * CPU; gc_codec_open_with refuses it with GC_ERROR_USAGE when this build has no CUDA or no
 * device is usable, and gc_last_error() says which. */
typedef enum { GC_EXECUTION_CPU = 0, GC_EXECUTION_CUDA = 1 } gc_execution;

/* Options for gc_codec_open_with; zero-initialise, then set what you need. */
typedef struct {
    int allow_nonfinite; /* nonzero: carry NaN and infinities exactly where the codec can */
    unsigned threads;    /* worker threads a codec may use per call; 0 or 1: the caller's only */
    int execution;       /* a gc_execution value; GC_EXECUTION_CPU (0) unless set */
} gc_options;

/* Compiles a codec spec such as "topk:density=0.01" or "rangeq:bits=8". */
GC_API gc_status gc_codec_open(const char* spec, gc_codec** out);
GC_API gc_status gc_codec_open_with(const char* spec, const gc_options* options, gc_codec** out);
GC_API void gc_codec_close(gc_codec* codec); /* NULL is allowed */

/* The spec as validated (e.g. "topk:density=0.01"); valid until gc_codec_close. */
GC_API const char* gc_codec_spec(const gc_codec* codec);

/* The largest frame that encoding n values of dtype can produce; 0 when the bound overflows
 * (n values too many for a size_t of bytes) or codec or dtype is invalid. */
GC_API size_t gc_frame_bound(const gc_codec* codec, gc_dtype dtype, size_t n);

/* Encodes n values at src into one frame at dst. On GC_OK *written is the frame's size.
 * A dst_capacity of gc_frame_bound() bytes always suffices. The dst_capacity bytes at dst must
 * not overlap src (nor, below, residual or decoded): GC_ERROR_USAGE otherwise. */
GC_API gc_status gc_encode_frame(gc_codec* codec, gc_dtype dtype, const void* src, size_t n,
                                 void* dst, size_t dst_capacity, size_t* written);

/* The same, and writes src - decode(frame) into residual (n values of dtype): what the codec
 * left out, for error feedback. residual may equal src (updated in place). */
GC_API gc_status gc_encode_frame_residual(gc_codec* codec, gc_dtype dtype, const void* src,
                                          size_t n, void* dst, size_t dst_capacity, size_t* written,
                                          void* residual);

/* The same with both of error feedback's outputs, either of which may be NULL: residual as
 * above, and decode(frame) into decoded (n values of dtype), which must overlap neither src
 * nor residual. A sender that adds its own values to an average takes them from decoded,
 * bit for bit what receivers decode, and saves decoding its own frame again. */
GC_API gc_status gc_encode_frame_feedback(gc_codec* codec, gc_dtype dtype, const void* src,
                                          size_t n, void* dst, size_t dst_capacity, size_t* written,
                                          void* residual, void* decoded);

/* Checks a frame (magic, version, checksum) and reports its dtype and element count. */
GC_API gc_status gc_frame_info(const void* frame, size_t size, gc_dtype* dtype, size_t* n);

/* Decodes a frame into dst, which must hold exactly n values of its dtype (dst_bytes). */
GC_API gc_status gc_decode_frame(const void* frame, size_t size, void* dst, size_t dst_bytes);

/* A static description of a status code. */
GC_API const char* gc_status_string(gc_status status);

/* The message of this thread's last failure; "" when none. Valid until this thread's next
 * gradcodec call. */
GC_API const char* gc_last_error(void);

/* The codecs this build knows: names for gc_codec_open, in a stable order. */
GC_API size_t gc_codec_count(void);
GC_API const char* gc_codec_name(size_t index); /* NULL past the end */

/* major*10000 + minor*100 + patch of the library, as GRADCODEC_VERSION_NUMBER. */
GC_API unsigned gc_version_number(void);

#ifdef __cplusplus
}
#endif

#endif /* GRADCODEC_H */
