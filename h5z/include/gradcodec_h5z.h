/* gradcodec's HDF5 filter: each chunk of a filtered dataset is one gradcodec frame.
 *
 * The filter ID is the one constant every writer and reader must agree on. HDF5 assigns
 * registered IDs; until gradcodec's is assigned, the filter uses an ID from the range HDF5
 * leaves for unregistered and testing filters (256-511). The plugin refuses to run under any
 * other ID.
 *
 * cd_values (the filter's parameters) follow format-spec/FILTER.md: layout version, codec id,
 * dtype code, chunk element count (two 32-bit halves), flags, spec length, then the codec spec
 * text packed four bytes per value, little-endian. set_local fills the codec id, dtype and
 * element count from the dataset, so a writer only gives the version, flags and the spec.
 */
#ifndef GRADCODEC_H5Z_H
#define GRADCODEC_H5Z_H

#ifdef __cplusplus
extern "C" {
#endif

#define GRADCODEC_H5Z_FILTER_ID 399
#define GRADCODEC_H5Z_FILTER_NAME "gradcodec"

/* cd_values layout, version 1 (format-spec/FILTER.md). */
#define GRADCODEC_H5Z_LAYOUT_VERSION 1
#define GRADCODEC_H5Z_CD_VERSION 0
#define GRADCODEC_H5Z_CD_CODEC_ID 1
#define GRADCODEC_H5Z_CD_DTYPE 2
#define GRADCODEC_H5Z_CD_COUNT_LOW 3
#define GRADCODEC_H5Z_CD_COUNT_HIGH 4
#define GRADCODEC_H5Z_CD_FLAGS 5
#define GRADCODEC_H5Z_CD_SPEC_LENGTH 6
#define GRADCODEC_H5Z_CD_SPEC 7
#define GRADCODEC_H5Z_MAX_SPEC_LENGTH 996 /* 7 + 249 values: HDF5 reads at most 256 */

/* Flags (cd_values[5]); unknown bits are refused. */
#define GRADCODEC_H5Z_FLAG_ALLOW_NONFINITE 1u

/* Registers the filter with the HDF5 library in this process, for programs that link the
 * filter instead of loading the plugin. Returns 0 on success, a negative value on failure. */
int gradcodec_h5z_register(void);

#ifdef __cplusplus
}
#endif

#endif /* GRADCODEC_H5Z_H */
