/* The C API through pkg-config, against the installed shared library only. */
#include <gradcodec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    float x[1000], back[1000];
    for (int i = 0; i < 1000; ++i) x[i] = (float)(i % 7) - 3.0f;
    gc_codec* codec = NULL;
    if (gc_codec_open("lossless", &codec) != GC_OK) return 1;
    const size_t bound = gc_frame_bound(codec, GC_F32, 1000);
    unsigned char* frame = malloc(bound);
    size_t written = 0;
    if (gc_encode_frame(codec, GC_F32, x, 1000, frame, bound, &written) != GC_OK) return 1;
    if (gc_decode_frame(frame, written, back, sizeof back) != GC_OK) return 1;
    if (memcmp(x, back, sizeof x) != 0) return 1;
    printf("consumer.c: %zu bytes, version %u\n", written, gc_version_number());
    free(frame);
    gc_codec_close(codec);
    return 0;
}
