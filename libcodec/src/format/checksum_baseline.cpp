// XXH3-64 for the instruction set every CPU of the build's architecture has.
#define GRADCODEC_CHECKSUM_IMPL kChecksumBaseline
#define GRADCODEC_CHECKSUM_NAME "baseline"
#include "format/checksum_xxh3.inc"
