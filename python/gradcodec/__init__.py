"""gradcodec: lossy and lossless codecs for deep-learning gradients.

    codec = gradcodec.Codec("topk:density=0.01")
    frame = codec.encode(grad)                      # bytes: one self-describing frame
    back = gradcodec.decode(frame)                  # numpy array, shape and dtype of grad
    frame = codec.encode(grad, residual=rest)       # rest = grad - decode(frame)
    frame = codec.encode(grad, residual=rest, decoded=seen)  # seen = decode(frame), no 2nd decode

Arrays are read in place (no copy) when they are C-contiguous NumPy arrays or CPU torch
tensors; f16, bf16, f32 and f64 are supported. NumPy has no bfloat16: pass a torch.bfloat16
tensor, or a uint16 array of its bits with dtype="bf16". Errors are gradcodec.Error
subclasses (UsageError and BadInputError are also ValueError).

Torch in gives torch out: decode() of a frame held in a torch uint8 tensor returns a CPU
torch tensor (bf16 frames as torch.bfloat16, f16 as torch.float16), as do decode_positions()
of a torch section (torch.int64) and decode() into a torch `out`; bytes and NumPy in give
NumPy out. A frame itself is always bytes (encode(), whatever the array), so that it can be
written to a file or a socket as it is; torch.frombuffer(bytearray(frame), dtype=torch.uint8)
makes it a tensor.

Decoding is capped as `gradcodec decode` is: decode() and read_stream() refuse, with LimitError
and before allocating anything, a tensor whose header declares more than max_tensor_bytes
decoded bytes (default: default_max_tensor_bytes(), a quarter of the memory this process may
use, at most 4 GiB) or decoded arrays of more than max_total_bytes in all (default:
DEFAULT_MAX_TOTAL_BYTES, 16 GiB). A few bytes of frame may declare billions of values.

gradcodec.torch holds the PyTorch DDP communication hook (imported on first use).

HDF5: the package carries the filter plugin, libH5Zgradcodec.so, in gradcodec/_plugins/
(hdf5_plugin_dir()). `import gradcodec` adds that directory to the plugin path of the HDF5
library that h5py uses (h5py.h5pl.prepend), so h5py reads and writes gradcodec-filtered
datasets with no HDF5_PLUGIN_PATH set:

    import gradcodec, h5py
    values = h5py.File("repacked.h5")["step/param"][...]

It does not import h5py for this: if h5py is not imported yet, the directory is added right
after its first import (a finder on sys.meta_path that steps aside once h5py is found). The
package's plugin comes before the directories of HDF5_PLUGIN_PATH. Other HDF5 programs (h5dump,
h5repack) need HDF5_PLUGIN_PATH=$(python3 -c "import gradcodec; print(gradcodec.hdf5_plugin_dir())").
The plugin links the system's HDF5 (Debian's libhdf5), the one Debian's python3-h5py uses; an
h5py wheel that bundles its own HDF5 would load a second copy with it.
"""

from . import _gradcodec, _h5plugin
from ._gradcodec import (
    DEFAULT_MAX_TOTAL_BYTES,
    BadInputError,
    DamagedStreamError,
    Error,
    IOError,
    LimitError,
    UsageError,
    codec_catalog,
    default_max_tensor_bytes,
    list_codecs,
    random_positions,
)

__version__ = _gradcodec.__version__
__all__ = [
    "Codec", "decode", "frame_info", "list_codecs", "codec_catalog", "read_stream", "StreamWriter",
    "Error", "UsageError", "BadInputError", "DamagedStreamError", "LimitError", "IOError",
    "default_max_tensor_bytes", "DEFAULT_MAX_TOTAL_BYTES",
    "random_positions", "encode_positions", "decode_positions", "hdf5_plugin_dir",
]


def _torch_tensor(value):
    """A torch tensor's class without importing torch when it was never imported."""
    import sys
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def _as_buffer(value, dtype=None):
    """(buffer, dtype) for the compiled module: CPU torch tensors become NumPy views of the
    same memory; bfloat16 ones become uint16 views of their bits."""
    if not _torch_tensor(value):
        return value, dtype
    import torch
    if value.device.type != "cpu":
        raise UsageError(f"the tensor is on {value.device}: move it to the CPU first")
    if not value.is_contiguous():
        raise UsageError("the tensor must be contiguous: call .contiguous() first")
    tensor = value.detach()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy(), "bf16"
    return tensor.numpy(), dtype


# A decoded array's NumPy dtype -> the torch dtype it stands for; uint16 holds bf16 bits.
_TORCH_DTYPES = {"float16": "float16", "float32": "float32", "float64": "float64", "uint16": "bfloat16",
                 "uint64": "int64"}


def _to_torch(array):
    """A CPU torch tensor sharing the decoded array's memory: bf16 bits (uint16) become
    torch.bfloat16 and positions (uint64, which torch lacks) torch.int64."""
    import torch
    name = _TORCH_DTYPES[array.dtype.name]
    if name == "bfloat16":
        return torch.from_numpy(array.view("int16")).view(torch.bfloat16)
    if name == "int64":
        return torch.from_numpy(array.view("int64"))
    return torch.from_numpy(array)


def _feedback(residual, decoded):
    return {"residual": None if residual is None else _as_buffer(residual)[0],
            "decoded": None if decoded is None else _as_buffer(decoded)[0]}


class Codec:
    """A codec compiled once from its spec ("topk:density=0.01", "rangeq:bits=8", ...).

    Immutable; one Codec may be used by many threads at once (the GIL is released while it
    encodes). A bad spec raises UsageError, a ValueError.
    """

    def __init__(self, spec, allow_nonfinite=False):
        self._codec = _gradcodec.Codec(spec, allow_nonfinite)
        self.allow_nonfinite = allow_nonfinite

    @property
    def spec(self):
        return self._codec.spec

    @property
    def name(self):
        return self._codec.name

    @property
    def id(self):
        return self._codec.id

    def max_frame_size(self, count, dtype="f32"):
        """The most bytes a frame of `count` values of `dtype` can take (BadInputError when
        that overflows 64 bits)."""
        return self._codec.max_frame_size(count, dtype)

    def encode(self, array, *, residual=None, decoded=None, dtype=None):
        """One frame (bytes) for `array`. dtype names the values' type where the array cannot
        ("bf16" for uint16 bits); it must otherwise agree with the array's own dtype (UsageError
        for a complex, structured or integer array named f32 or f64). Error feedback's
        outputs, each an array of the same dtype and size sharing memory with neither `array`
        nor the other:
        residual: receives array - decode(frame), what the codec left out;
        decoded: receives decode(frame), what every receiver of the frame decodes, bit for bit
            (the frame is decoded once for both)."""
        values, dtype = _as_buffer(array, dtype)
        return self._codec.encode(values, dtype=dtype, **_feedback(residual, decoded))

    def encode_into(self, array, out, *, residual=None, decoded=None, dtype=None):
        """Encodes into the writable byte buffer `out`; returns the frame's size. A buffer of
        max_frame_size() bytes always suffices (LimitError when `out` is too small). `out`
        must share no memory with `array`, residual or decoded (UsageError otherwise).
        residual and decoded as for encode()."""
        values, dtype = _as_buffer(array, dtype)
        out, _ = _as_buffer(out)
        return self._codec.encode_into(values, out, dtype=dtype, **_feedback(residual, decoded))

    def __repr__(self):
        return f"gradcodec.Codec({self.spec!r})"


def decode(frame, out=None, *, dtype=None, max_tensor_bytes=None, max_total_bytes=None):
    """The values of one frame: a new NumPy array of the frame's shape (bf16 frames give
    uint16 bit patterns), or written into `out` (an array or CPU tensor of the frame's dtype
    and element count), which is returned.

    A new array is allocated only when the frame's header declares at most max_tensor_bytes
    and max_total_bytes decoded bytes (None: the defaults, default_max_tensor_bytes() and
    DEFAULT_MAX_TOTAL_BYTES, those of `gradcodec decode`); LimitError otherwise, raised before
    anything is allocated. Decoding into `out`, which the caller allocated, is not capped.
    A cap must be a positive number of bytes (UsageError).

    A frame in a torch uint8 tensor gives a CPU torch tensor (bf16 frames as torch.bfloat16,
    f16 ones as torch.float16), bytes or a NumPy frame a NumPy array."""
    as_torch = _torch_tensor(frame)
    frame, _ = _as_buffer(frame)
    caps = {"max_tensor_bytes": max_tensor_bytes, "max_total_bytes": max_total_bytes}
    if out is None:
        values = _gradcodec.decode(frame, dtype=dtype, **caps)
        return _to_torch(values) if as_torch else values
    target, out_dtype = _as_buffer(out, dtype)
    _gradcodec.decode(frame, out=target, dtype=out_dtype, **caps)
    return out


def frame_info(frame):
    """The header of one frame (bytes, a NumPy array or a torch uint8 tensor) as a dict:
    codec_id, codec, dtype, shape, element_count, payload_offset, payload_size, frame_size."""
    return _gradcodec.frame_info(_as_buffer(frame)[0])


def encode_positions(positions, n):
    """A position section (format-spec/codec-sparse.md) for strictly increasing positions
    below n, as bytes; positions: an integer NumPy array or torch tensor."""
    if _torch_tensor(positions):
        positions = positions.detach().cpu().numpy()
    return _gradcodec.encode_positions(positions, n)


def decode_positions(section, n):
    """The positions of one position section: uint64 NumPy, or torch.int64 for a section in
    a torch uint8 tensor."""
    positions = _gradcodec.decode_positions(_as_buffer(section)[0], n)
    return _to_torch(positions) if _torch_tensor(section) else positions


def hdf5_plugin_dir():
    """The directory of the package's HDF5 filter plugin, libH5Zgradcodec.so, for
    HDF5_PLUGIN_PATH (h5py needs none: see the module's docstring); None in a package built
    without it."""
    return _h5plugin.plugin_dir()


def read_stream(path, max_elements=None, *, max_tensor_bytes=None, max_total_bytes=None):
    """Yields (name, array, attrs) for every tensor of a gradcodec stream file, decoded.

    Names are HDF5 paths without their leading '/' ("step_00001/fc.weight"), as StreamWriter
    takes them, `gradcodec inspect` prints them and h5py's File.visit() gives them for the
    file `gradcodec decode` makes of the stream (f[name] finds the dataset).

    Caps, checked against each record's header before its array is allocated (LimitError):
    max_elements, a tensor's element count (None: the library's reader default);
    max_tensor_bytes, a tensor's decoded bytes, and max_total_bytes, the decoded bytes of all
    the tensors yielded (None: default_max_tensor_bytes() and DEFAULT_MAX_TOTAL_BYTES, the
    defaults of `gradcodec decode --max-tensor-bytes/--max-total-bytes`)."""
    yield from _gradcodec.StreamReader(str(path), max_elements,
                                       max_tensor_bytes=max_tensor_bytes,
                                       max_total_bytes=max_total_bytes)


class StreamWriter:
    """Writes a gradcodec stream file that `gradcodec decode` turns into HDF5.

        with gradcodec.StreamWriter("dump.gcs", codec="topk:density=0.01") as w:
            w.write("step_00001/fc.weight", grad, attrs={"step": 1})

    Parent groups are written before the first tensor inside them. The file appears only on
    a clean close; an exception inside the `with` block leaves nothing behind. It is built
    unnamed in the target's directory (no temporary name that a symlink could be planted at),
    synced to disk, then published whole.

    An existing file at `path` is a UsageError unless `overwrite=True`, at construction and
    again at close if one appeared meanwhile (another writer's committed file is never lost);
    with `overwrite=True` it is replaced atomically, keeping its mode. A directory, device,
    FIFO or symbolic link at `path` is never replaced.
    """

    def __init__(self, path, codec="lossless", *, overwrite=False):
        self._writer = _gradcodec.StreamWriter(str(path), codec, overwrite=overwrite)

    def write(self, name, array, *, codec=None, attrs=None, dtype=None):
        values, dtype = _as_buffer(array, dtype)
        self._writer.write(name, values, codec=codec, attrs=dict(attrs or {}), dtype=dtype)

    def write_group(self, path, attrs=None):
        self._writer.write_group(path, dict(attrs or {}))

    def close(self):
        self._writer.close()

    def abandon(self):
        self._writer.abandon()

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self.close()
        else:
            self.abandon()
        return False


def __getattr__(name):
    # gradcodec.torch imports torch, which takes seconds: only on first use.
    if name == "torch":
        import importlib
        return importlib.import_module(".torch", __name__)
    raise AttributeError(f"module 'gradcodec' has no attribute {name!r}")


try:
    from .h5filter import h5filter  # noqa: F401  (needs h5py)
except ImportError:
    pass

_h5plugin.watch_h5py()
