"""HDF5 files of every dataset class a dump may hold besides plain numbers, legal but awkward,
for tests/cli/typed_datasets.sh; and an exact comparison of two such files.

usage: typed_hdf5.py make DIR        writes DIR/typed.h5 and DIR/refs.h5
       typed_hdf5.py same A.h5 B.h5  exit 0 when B holds A's tree: same HDF5 types (H5Tequal),
                                     shapes, values and attributes; 1 with the differences
"""
import sys

import h5py
import numpy as np


def low_level(group, name, type_id, shape, data=None):
    space = h5py.h5s.create(h5py.h5s.SCALAR) if shape == () else h5py.h5s.create_simple(shape)
    dataset = h5py.h5d.create(group.id, name.encode(), type_id, space)
    if data is not None:
        dataset.write(h5py.h5s.ALL, h5py.h5s.ALL, data, mtype=type_id)
    return group[name]


def make_typed(path):
    f = h5py.File(path, "w")
    f.create_dataset("weights", data=np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6))
    names = f.create_group("meta")
    # Strings: fixed (null-padded, null-terminated, space-padded; ASCII and UTF-8), variable.
    names.create_dataset("fixed_ascii", data=np.array([b"conv1.weight", b"fc", b""], "S12"))
    for pad, cset, name in ((h5py.h5t.STR_NULLTERM, h5py.h5t.CSET_ASCII, "fixed_nullterm"),
                            (h5py.h5t.STR_SPACEPAD, h5py.h5t.CSET_ASCII, "fixed_spacepad"),
                            (h5py.h5t.STR_NULLPAD, h5py.h5t.CSET_UTF8, "fixed_utf8")):
        t = h5py.h5t.C_S1.copy()
        t.set_size(5)
        t.set_strpad(pad)
        t.set_cset(cset)
        low_level(names, name, t, (2,), np.array(["\u2207w".encode(), b"x"], "S5"))
    names.create_dataset("vlen_ascii", data=[b"a", b"bcd", b""], dtype=h5py.string_dtype("ascii"))
    names.create_dataset("vlen_utf8", data=["Gewicht", "\u68af\u5ea6 \u2207", "", "tab\there"],
                         dtype=h5py.string_dtype())
    names.create_dataset("vlen_2d", data=np.array([["a", "bb"], ["ccc", ""]], dtype=object),
                         dtype=h5py.string_dtype())
    names.create_dataset("vlen_scalar", data="only one", dtype=h5py.string_dtype())
    names.create_dataset("vlen_empty", shape=(0,), dtype=h5py.string_dtype())
    names.create_dataset("vlen_chunked", data=["s%d" % i for i in range(100)],
                         dtype=h5py.string_dtype(), chunks=(10,), compression="gzip")
    names["vlen_utf8"].attrs["note"] = "parameter names"
    names["vlen_utf8"].attrs["count"] = np.int64(4)

    kinds = f.create_group("kinds")
    # Compound: a nested array, a vlen string and a vlen sequence member, big-endian members,
    # and padding between members.
    compound = np.dtype({"names": ["id", "xy", "name", "seq", "be"],
                         "formats": ["<i8", ("<f4", (2,)), h5py.string_dtype(),
                                     h5py.vlen_dtype(np.int16), ">u2"],
                         "offsets": [0, 8, 24, 32, 56], "itemsize": 64})
    c = np.zeros(3, dtype=compound)
    c[0] = (1, [1.5, 2.5], "alpha", np.array([1, 2], np.int16), 513)
    c[1] = (2, [3, 4], "", np.array([], np.int16), 0)
    c[2] = (-3, [np.inf, -0.0], "\u00fc", np.arange(7, dtype=np.int16), 65535)
    kinds.create_dataset("compound", data=c)
    kinds.create_dataset("compound_empty", shape=(0,), dtype=compound)
    kinds.create_dataset("compound_scalar", data=c[0])
    plain = np.dtype([("a", "<i4"), ("b", ">f8")])
    kinds.create_dataset("compound_fixed", data=np.array([(1, 2.5), (-7, 1e300)], plain))
    kinds["compound"].attrs["units"] = np.array([b"none", b"m"], "S4")
    # Enums (not h5py's bool), over int16 and uint8.
    kinds.create_dataset("enum", data=np.array([0, 42, 1, 42], np.int16),
                         dtype=h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 42}, basetype="i2"))
    kinds.create_dataset("enum_u8", data=np.array([[3, 9], [9, 3]], np.uint8),
                         dtype=h5py.enum_dtype({"LOW": 3, "HIGH": 9}, basetype="u1"))
    # HDF5 array types (h5py would expand a numpy subarray into dimensions): fixed and vlen base.
    ints = h5py.h5t.array_create(h5py.h5t.STD_I32BE, (3, 2))
    low_level(kinds, "array", ints, (2,), np.arange(12, dtype=">i4").reshape(2, 3, 2))
    strings = h5py.h5t.array_create(h5py.h5t.py_create(h5py.string_dtype(), logical=True), (2,))
    low_level(kinds, "array_vlen", strings, (2,),
              np.array([["p", "q"], ["", "rst"]], dtype=object))
    # Opaque with a tag, bitfields, and a float HDF5 calls float but gradcodec has no dtype for.
    tagged = h5py.h5t.create(h5py.h5t.OPAQUE, 4)
    tagged.set_tag(b"raw sensor bytes")
    low_level(kinds, "opaque_tag", tagged, (3,),
              np.frombuffer(b"ab\x00dwxyz\xff\xfe\x00\x01", "V4"))
    kinds.create_dataset("opaque_scalar", data=np.void(b"\x01\x02\x03"))
    low_level(kinds, "bitfield", h5py.h5t.STD_B16LE, (2,), np.array([0x8001, 7], "<u2"))
    kinds.create_dataset("float128", data=np.array([1 / 3, -2.5], np.longdouble))
    # Variable-length sequences: of ints, of a compound, of sequences.
    seq = kinds.create_dataset("vlen_ints", (4,), dtype=h5py.vlen_dtype(np.int32))
    seq[0] = [1, 2, 3]
    seq[1] = []
    seq[2] = np.arange(10, dtype=np.int32)
    seq[3] = [-(2 ** 31)]
    pair = np.dtype([("k", "<u1"), ("v", "<f8")])
    seqc = kinds.create_dataset("vlen_compound", (2,), dtype=h5py.vlen_dtype(pair))
    seqc[0] = np.array([(1, 0.5), (2, -0.25)], pair)
    seqc[1] = np.array([(255, np.nan)], pair)  # h5py cannot read an empty one back
    nested = h5py.h5t.vlen_create(h5py.h5t.vlen_create(h5py.h5t.STD_U8LE))
    low_level(kinds, "vlen_vlen", nested, (2,), None)
    kinds["vlen_ints"].attrs["what"] = "ragged"
    f.close()


def make_refs(path):
    f = h5py.File(path, "w")
    w = f.create_dataset("weights", data=np.arange(6, dtype=np.float32))
    f.create_dataset("names", data=["w"], dtype=h5py.string_dtype())
    refs = f.create_dataset("refs", (1,), dtype=h5py.ref_dtype)
    refs[0] = w.ref
    regions = f.create_dataset("regions", (1,), dtype=h5py.regionref_dtype)
    regions[0] = w.regionref[1:3]
    f.close()


def values_of(dataset):
    try:
        return dataset[()]
    except OSError:
        # h5py converts a tagged opaque type to nothing it knows: read the bytes as stored.
        raw = np.empty(dataset.shape, "V%d" % dataset.id.get_type().get_size())
        dataset.id.read(h5py.h5s.ALL, h5py.h5s.ALL, raw, mtype=dataset.id.get_type())
        return raw


def values_equal(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "O" or a.dtype.names or a.dtype.subdtype:
        return repr(a.tolist()) == repr(b.tolist())
    return a.tobytes() == b.tobytes()


def same(path_a, path_b):
    problems = []
    a, b = h5py.File(path_a, "r"), h5py.File(path_b, "r")

    def visit(name, obj):
        if name not in b:
            problems.append(f"{name}: missing")
            return
        other = b[name]
        if isinstance(obj, h5py.Dataset):
            if not isinstance(other, h5py.Dataset):
                problems.append(f"{name}: not a dataset")
                return
            if obj.id.get_type() != other.id.get_type():
                problems.append(f"{name}: HDF5 type differs")
            if obj.shape != other.shape:
                problems.append(f"{name}: shape {obj.shape} != {other.shape}")
            elif not values_equal(np.asarray(values_of(obj)), np.asarray(values_of(other))):
                problems.append(f"{name}: values differ")
        if sorted(obj.attrs) != sorted(other.attrs):
            problems.append(f"{name}: attribute names differ")
        for key in obj.attrs:
            if key in other.attrs and repr(obj.attrs[key]) != repr(other.attrs[key]):
                problems.append(f"{name}: attribute {key} differs")

    a.visititems(visit)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make_typed(sys.argv[2] + "/typed.h5")
        make_refs(sys.argv[2] + "/refs.h5")
        sys.exit(0)
    sys.exit(same(sys.argv[2], sys.argv[3]))
