/* The C API used from C11, as a binding would: round trips, the residual, errors that never
 * crash, and the bad frames of samples/frames/bad. usage: capi_test SAMPLES_FRAMES_DIR */
#include <gradcodec.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: %s\n", __FILE__, __LINE__, #cond, \
                    gc_last_error());                                                   \
            ++failures;                                                                 \
        }                                                                               \
    } while (0)

static float gradient(size_t i) {
    return (float)(sin((double)i * 0.37) * 1e-3 * (double)(i % 17));
}

static void round_trip(const char* spec, int exact) {
    enum { N = 5000 };
    static float x[N], back[N];
    for (size_t i = 0; i < N; ++i) x[i] = gradient(i);
    gc_codec* codec = NULL;
    CHECK(gc_codec_open(spec, &codec) == GC_OK);
    if (!codec) return;
    const size_t bound = gc_frame_bound(codec, GC_F32, N);
    unsigned char* frame = malloc(bound);
    size_t written = 0;
    CHECK(gc_encode_frame(codec, GC_F32, x, N, frame, bound, &written) == GC_OK);
    CHECK(written > 28 && written <= bound);
    gc_dtype dtype = GC_F64;
    size_t n = 0;
    CHECK(gc_frame_info(frame, written, &dtype, &n) == GC_OK);
    CHECK(dtype == GC_F32 && n == N);
    CHECK(gc_decode_frame(frame, written, back, sizeof back) == GC_OK);
    if (exact) CHECK(memcmp(x, back, sizeof x) == 0);
    /* Too small a destination is reported, not overrun. */
    size_t small = 0;
    CHECK(gc_encode_frame(codec, GC_F32, x, N, frame, 10, &small) == GC_ERROR_DST_TOO_SMALL);
    free(frame);
    gc_codec_close(codec);
}

static void residual_is_what_was_left_out(void) {
    enum { N = 4000 };
    static float x[N], residual[N], back[N];
    for (size_t i = 0; i < N; ++i) x[i] = gradient(i);
    gc_codec* codec = NULL;
    CHECK(gc_codec_open("topk:density=0.02,values=f32", &codec) == GC_OK);
    const size_t bound = gc_frame_bound(codec, GC_F32, N);
    unsigned char* frame = malloc(bound);
    size_t written = 0;
    CHECK(gc_encode_frame_residual(codec, GC_F32, x, N, frame, bound, &written, residual) == GC_OK);
    CHECK(gc_decode_frame(frame, written, back, sizeof back) == GC_OK);
    size_t kept = 0;
    for (size_t i = 0; i < N; ++i) {
        kept += back[i] != 0.0f;
        CHECK(back[i] + residual[i] == x[i]);
    }
    CHECK(kept == 80);
    /* In place: the residual overwrites the input. */
    CHECK(gc_encode_frame_residual(codec, GC_F32, x, N, frame, bound, &written, x) == GC_OK);
    CHECK(memcmp(x, residual, sizeof x) == 0);
    free(frame);
    gc_codec_close(codec);
}

static void feedback_hands_back_the_decoded_frame_and_the_residual(void) {
    enum { N = 4000 };
    static float x[N], residual[N], decoded[N], back[N];
    for (size_t i = 0; i < N; ++i) x[i] = gradient(i);
    gc_codec* codec = NULL;
    CHECK(gc_codec_open("rangeq:bits=6", &codec) == GC_OK);
    const size_t bound = gc_frame_bound(codec, GC_F32, N);
    unsigned char* frame = malloc(bound);
    size_t written = 0;
    CHECK(gc_encode_frame_feedback(codec, GC_F32, x, N, frame, bound, &written, residual,
                                   decoded) == GC_OK);
    CHECK(gc_decode_frame(frame, written, back, sizeof back) == GC_OK);
    CHECK(memcmp(decoded, back, sizeof back) == 0);
    size_t rounded = 0;
    for (size_t i = 0; i < N; ++i) {
        CHECK(residual[i] == x[i] - back[i]);
        rounded += residual[i] != 0.0f;
    }
    CHECK(rounded > N / 2); /* 6-bit floats round most values */
    /* Decoded alone, and decoded overlapping the input is refused. */
    memset(decoded, 0, sizeof decoded);
    CHECK(gc_encode_frame_feedback(codec, GC_F32, x, N, frame, bound, &written, NULL, decoded) ==
          GC_OK);
    CHECK(memcmp(decoded, back, sizeof back) == 0);
    CHECK(gc_encode_frame_feedback(codec, GC_F32, x, N, frame, bound, &written, NULL, x + 1) ==
          GC_ERROR_USAGE);
    free(frame);
    gc_codec_close(codec);
}

static void errors_are_statuses(void) {
    gc_codec* codec = (gc_codec*)1;
    CHECK(gc_codec_open("topk:densty=0.1", &codec) == GC_ERROR_USAGE);
    CHECK(codec == NULL);
    CHECK(strstr(gc_last_error(), "density") != NULL);
    CHECK(gc_codec_open(NULL, &codec) == GC_ERROR_USAGE);
    CHECK(gc_decode_frame("garbage!", 8, NULL, 0) == GC_ERROR_DAMAGED);
    CHECK(strcmp(gc_status_string(GC_ERROR_DAMAGED), "damaged or unsupported frame") == 0);
    gc_codec_close(NULL);

    float nan_values[3] = {1.0f, NAN, 2.0f};
    unsigned char frame[256];
    size_t written = 0;
    CHECK(gc_codec_open("rangeq:bits=8", &codec) == GC_OK);
    CHECK(gc_encode_frame(codec, GC_F32, nan_values, 3, frame, sizeof frame, &written) ==
          GC_ERROR_BAD_INPUT);
    gc_codec_close(codec);
    gc_options options = {0};
    options.allow_nonfinite = 1;
    CHECK(gc_codec_open_with("rangeq:bits=8", &options, &codec) == GC_OK);
    CHECK(gc_encode_frame(codec, GC_F32, nan_values, 3, frame, sizeof frame, &written) == GC_OK);
    float back[3];
    CHECK(gc_decode_frame(frame, written, back, sizeof back) == GC_OK);
    CHECK(isnan(back[1]));
    /* Decoding into a buffer of the wrong size is refused. */
    CHECK(gc_decode_frame(frame, written, back, 8) == GC_ERROR_USAGE);
    gc_codec_close(codec);
}

/* The GPU policy either runs (a CUDA build with a device) or is refused up front with a
 * reason; an unknown policy is a usage error. */
static void execution_is_an_option(void) {
    gc_codec* codec = NULL;
    gc_options options = {0};
    options.execution = GC_EXECUTION_CUDA;
    const gc_status status = gc_codec_open_with("topk:density=0.5", &options, &codec);
    if (status == GC_OK) {
        const float values[4] = {1.0f, -4.0f, 0.5f, 3.0f};
        unsigned char frame[256];
        size_t written = 0;
        CHECK(gc_encode_frame(codec, GC_F32, values, 4, frame, sizeof frame, &written) == GC_OK);
        float back[4];
        CHECK(gc_decode_frame(frame, written, back, sizeof back) == GC_OK);
        CHECK(back[1] == -4.0f && back[3] == 3.0f && back[0] == 0.0f);
        gc_codec_close(codec);
    } else {
        CHECK(status == GC_ERROR_USAGE);
        CHECK(codec == NULL);
        CHECK(strstr(gc_last_error(), "execution cuda") != NULL);
    }
    options.execution = 7;
    CHECK(gc_codec_open_with("topk:density=0.5", &options, &codec) == GC_ERROR_USAGE);
    CHECK(strstr(gc_last_error(), "execution") != NULL);
}

static void bad_frames_are_refused(const char* dir) {
    static const char* names[] = {
        "truncated",     "bad-magic",      "checksum",      "major-2",       "required-flag",
        "reserved-byte", "shape-mismatch", "unknown-codec", "unknown-dtype", "payload-damaged"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        char path[4096];
        snprintf(path, sizeof path, "%s/bad/%s.gcf", dir, names[i]);
        FILE* f = fopen(path, "rb");
        CHECK(f != NULL);
        if (!f) continue;
        unsigned char bytes[65536];
        const size_t size = fread(bytes, 1, sizeof bytes, f);
        fclose(f);
        float out[3]; /* every bad frame comes from a good frame of 3 f32 values */
        const gc_status status = gc_decode_frame(bytes, size, out, sizeof out);
        if (status != GC_ERROR_DAMAGED) fprintf(stderr, "%s: status %d\n", names[i], status);
        CHECK(status == GC_ERROR_DAMAGED);
        CHECK(strlen(gc_last_error()) > 0);
    }
}

/* A dst that shares bytes with src, residual or decoded would be written while it is still
 * read: such a call is refused as usage, for a lossless codec too, and writes no frame. */
static void overlapping_buffers_are_refused(void) {
    enum { N = 256 };
    static float x[N], residual[N], decoded[N];
    /* Room for the values followed by a frame: lossless needs 1 + 4N + 28 bytes. */
    static float arena[2 * N + 64];
    for (size_t i = 0; i < N; ++i) x[i] = arena[i] = gradient(i) + 1.0f;
    const char* specs[] = {"lossless", "topk:density=0.1", "rangeq:bits=8"};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; ++s) {
        gc_codec* codec = NULL;
        CHECK(gc_codec_open(specs[s], &codec) == GC_OK);
        if (!codec) continue;
        const size_t bound = gc_frame_bound(codec, GC_F32, N);
        CHECK(bound > 0 && bound <= sizeof arena);
        size_t written = 0;
        /* dst over the values themselves, and starting inside them. */
        CHECK(gc_encode_frame(codec, GC_F32, arena, N, arena, bound, &written) == GC_ERROR_USAGE);
        CHECK(strstr(gc_last_error(), "overlap") != NULL ||
              strstr(gc_last_error(), "share") != NULL);
        CHECK(gc_encode_frame(codec, GC_F32, arena + 2, N, arena, bound, &written) ==
              GC_ERROR_USAGE);
        CHECK(gc_encode_frame(codec, GC_F32, arena, N, (unsigned char*)arena + 4 * N - 1, bound,
                              &written) == GC_ERROR_USAGE);
        /* dst over the residual or the decoded buffer. */
        CHECK(gc_encode_frame_residual(codec, GC_F32, x, N, arena, bound, &written, arena + 8) ==
              GC_ERROR_USAGE);
        CHECK(gc_encode_frame_feedback(codec, GC_F32, x, N, arena, bound, &written, residual,
                                       arena + 8) == GC_ERROR_USAGE);
        CHECK(gc_encode_frame_feedback(codec, GC_F32, x, N, arena, bound, &written, arena + 8,
                                       decoded) == GC_ERROR_USAGE);
        /* Right next to the values is fine, and decodes to them. */
        CHECK(gc_encode_frame(codec, GC_F32, arena, N, arena + N, bound, &written) == GC_OK);
        float back[N];
        CHECK(gc_decode_frame(arena + N, written, back, sizeof back) == GC_OK);
        if (s == 0) CHECK(memcmp(back, x, sizeof back) == 0);
        gc_codec_close(codec);
    }
}

/* gc_frame_bound returns 0, as documented, when the bound does not fit: it never wraps to a
 * small size a caller would allocate and trust. */
static void frame_bounds_never_wrap(void) {
    const char* specs[] = {"lossless",          "cast:to=f16",       "rangeq:bits=8",
                           "topk:density=0.01", "threshold:value=1", "fft:density=0.1",
                           "dct:density=0.1"};
    const size_t huge[] = {(size_t)-1, (size_t)-1 / 2, (size_t)-1 / 4, (size_t)-1 / 8 + 1,
                           (size_t)-1 - 27};
    const gc_dtype dtypes[] = {GC_F16, GC_BF16, GC_F32, GC_F64};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; ++s) {
        gc_codec* codec = NULL;
        CHECK(gc_codec_open(specs[s], &codec) == GC_OK);
        if (!codec) continue;
        for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d) {
            for (size_t h = 0; h < sizeof huge / sizeof huge[0]; ++h) {
                const size_t bound = gc_frame_bound(codec, dtypes[d], huge[h]);
                /* Either no bound, or one that holds at least a bitmap of n positions. */
                if (bound != 0 && bound < huge[h] / 8) {
                    fprintf(stderr, "%s dtype %d n=%zu: bound %zu\n", specs[s], (int)dtypes[d],
                            huge[h], bound);
                }
                CHECK(bound == 0 || bound >= huge[h] / 8);
            }
        }
        gc_codec_close(codec);
    }
    gc_codec* lossless = NULL;
    CHECK(gc_codec_open("lossless", &lossless) == GC_OK);
    CHECK(gc_frame_bound(lossless, GC_F16, (size_t)-1 / 2) == 0);
    CHECK(gc_frame_bound(lossless, GC_F32, 1000) == 1 + 4000 + 28);
    gc_codec_close(lossless);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: capi_test SAMPLES_FRAMES_DIR\n");
        return 2;
    }
    CHECK(gc_version_number() == GRADCODEC_VERSION_NUMBER);
    CHECK(gc_codec_count() >= 16);
    CHECK(strcmp(gc_codec_name(0), "lossless") == 0);
    CHECK(gc_codec_name(gc_codec_count()) == NULL);
    round_trip("lossless", 1);
    round_trip("cast:to=bf16", 0);
    round_trip("rangeq:bits=8", 0);
    round_trip("topk:density=0.01", 0);
    round_trip("fft:density=0.1", 0);
    /* The comparison baselines of format 1.2, by spec string like every codec. */
    round_trip("randomk:density=0.01,seed=1", 0);
    round_trip("qsgd:levels=4,seed=2", 0);
    round_trip("terngrad:seed=3", 0);
    round_trip("sign", 0);
    round_trip("onebit:bucket=100", 0);
    round_trip("natural:seed=4", 0);
    round_trip("lowrank", 1); /* a flat frame is a vector: carried by its lossless fallback */
    residual_is_what_was_left_out();
    feedback_hands_back_the_decoded_frame_and_the_residual();
    errors_are_statuses();
    execution_is_an_option();
    bad_frames_are_refused(argv[1]);
    overlapping_buffers_are_refused();
    frame_bounds_never_wrap();
    if (failures) fprintf(stderr, "%d checks failed\n", failures);
    return failures ? 1 : 0;
}
