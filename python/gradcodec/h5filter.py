"""h5py keyword arguments for gradcodec's HDF5 filter.

It packs the filter parameters (format-spec/FILTER.md); which codecs run per chunk, and their
ids, come from the library's codec registry (gradcodec.codec_catalog()). Reading and writing the
dataset needs the plugin, libH5Zgradcodec.so: `import gradcodec` points h5py's HDF5 at the
package's own copy (see the package's docstring); other HDF5 programs find it through
HDF5_PLUGIN_PATH.

    import h5py, gradcodec
    with h5py.File("grads.h5", "w") as f:
        f.create_dataset("fc.weight", data=w, chunks=w.shape, **gradcodec.h5filter("rangeq:bits=8"))
"""

FILTER_ID = 399  # from HDF5's range for unregistered filters; registration is pending
LAYOUT_VERSION = 1
MAX_SPEC_LENGTH = 996  # 7 + 249 values: HDF5 reads at most 256
FLAG_ALLOW_NONFINITE = 1


def _filter_codec_ids():
    """{name: codec id} for every codec the registry marks usable per HDF5 chunk (filter_ok).
    Codec ids are format constants; the threshold selectors share the sparse payload's id."""
    from ._gradcodec import codec_catalog

    return {entry["name"]: entry["id"] for entry in codec_catalog() if entry["filter_ok"]}


_CODEC_IDS = _filter_codec_ids()


def filter_params(spec="lossless", allow_nonfinite=False):
    """The filter's cd_values for `spec`: version, codec id, dtype (0: filled by the filter
    from the dataset), chunk element count (0, 0: filled likewise), flags, spec length, then
    the spec's UTF-8 bytes packed four per value, little-endian."""
    name = spec.split(":", 1)[0]
    if name not in _CODEC_IDS:
        raise ValueError(
            "codec %r does not run per HDF5 chunk; use one of %s" % (name, ", ".join(_CODEC_IDS))
        )
    data = spec.encode("utf-8")
    if len(data) > MAX_SPEC_LENGTH:
        raise ValueError("codec spec longer than %d bytes" % MAX_SPEC_LENGTH)
    flags = FLAG_ALLOW_NONFINITE if allow_nonfinite else 0
    words = [LAYOUT_VERSION, _CODEC_IDS[name], 0, 0, 0, flags, len(data)]
    padded = data + b"\0" * (-len(data) % 4)
    words += [int.from_bytes(padded[i : i + 4], "little") for i in range(0, len(padded), 4)]
    return tuple(words)


def h5filter(spec="lossless", allow_nonfinite=False):
    """Keyword arguments for h5py's create_dataset that filter the dataset with `spec`.

    The codec's keys are checked by the filter when the dataset is created (h5py raises
    then), since only the library knows every codec's parameters."""
    return {"compression": FILTER_ID, "compression_opts": filter_params(spec, allow_nonfinite)}
