#!/usr/bin/env python3
"""Small HDF5 files on which libhdf5 (1.10) itself crashes, for tests/cli/libhdf5_crash.sh.

Each file is a valid h5py file with one structure damaged the way a flipped byte would, its
checksum (where the structure has one) recomputed, so libhdf5 trusts the damage:

  damaged-btree.h5        a group with 40 links in dense storage (libver='latest'): the v2
                          B-tree header ("BTHD") of its name index declares 255-byte records,
                          and opening the B-tree reads far past its nodes.
  damaged-global-heap.h5  a variable-length string attribute: the global heap collection
                          ("GCOL") gives its object a length of 65535, and reading the
                          attribute copies that much out of a 4096-byte collection.
  damaged-link.h5         a compact group (link messages in the object header): a link
                          message's flags declare a 4-byte name length, which then reads as
                          about 1.6 GB.

Each damaged file has an intact twin (*-intact.h5) with the same objects, from which a test
can encode a stream to inspect --against the damaged one. The files are written with fixed
contents and fixed timestamps, so every run writes the same bytes; with --verify, each damaged file is read
(its groups listed, its attributes read) by h5py in a subprocess, which must die by SIGSEGV or
SIGBUS, and each intact twin must read cleanly.

Usage: make_damaged_hdf5.py OUTPUT_DIR [--verify]
"""
import os
import signal
import struct
import subprocess
import sys

import h5py
import numpy as np

MASK = 0xFFFFFFFF


def _rot(x, k):
    return ((x << k) | (x >> (32 - k))) & MASK


def lookup3(data, initval=0):
    """Bob Jenkins' lookup3 hashlittle, HDF5's metadata checksum (H5_checksum_lookup3)."""
    n = len(data)
    a = b = c = (0xDEADBEEF + n + initval) & MASK
    i = 0

    def word(j):
        return int.from_bytes(data[j:j + 4], "little")

    while n > 12:
        a = (a + word(i)) & MASK
        b = (b + word(i + 4)) & MASK
        c = (c + word(i + 8)) & MASK
        a = (a - c) & MASK; a ^= _rot(c, 4); c = (c + b) & MASK
        b = (b - a) & MASK; b ^= _rot(a, 6); a = (a + c) & MASK
        c = (c - b) & MASK; c ^= _rot(b, 8); b = (b + a) & MASK
        a = (a - c) & MASK; a ^= _rot(c, 16); c = (c + b) & MASK
        b = (b - a) & MASK; b ^= _rot(a, 19); a = (a + c) & MASK
        c = (c - b) & MASK; c ^= _rot(b, 4); b = (b + a) & MASK
        n -= 12
        i += 12
    if n == 0:
        return c
    tail = bytes(data[i:i + n]) + bytes(12 - n)
    a = (a + int.from_bytes(tail[0:4], "little")) & MASK
    b = (b + int.from_bytes(tail[4:8], "little")) & MASK
    c = (c + int.from_bytes(tail[8:12], "little")) & MASK
    c ^= b; c = (c - _rot(b, 14)) & MASK
    a ^= c; a = (a - _rot(c, 11)) & MASK
    b ^= a; b = (b - _rot(a, 25)) & MASK
    c ^= b; c = (c - _rot(b, 16)) & MASK
    a ^= c; a = (a - _rot(c, 4)) & MASK
    b ^= a; b = (b - _rot(a, 14)) & MASK
    c ^= b; c = (c - _rot(b, 24)) & MASK
    return c


def only(data, signature):
    at = data.find(signature)
    if at < 0 or data.find(signature, at + 1) >= 0:
        raise SystemExit(f"expected exactly one {signature!r} in the file")
    return at


def object_headers(data):
    """Every version-2 object header ("OHDR"): its start, the end of chunk 0 (where its
    checksum sits) and its messages as (type, data offset, data size)."""
    found, start = [], 0
    while (at := data.find(b"OHDR", start)) >= 0:
        start = at + 4
        flags = data[at + 5]
        p = at + 6 + (16 if flags & 0x20 else 0) + (4 if flags & 0x10 else 0)
        width = 1 << (flags & 3)
        end = p + width + int.from_bytes(data[p:p + width], "little")
        p += width
        messages = []
        header = 4 + (2 if flags & 0x04 else 0)
        while p + header <= end:
            size = struct.unpack_from("<H", data, p + 1)[0]
            if p + header + size > end:
                break
            messages.append((data[p], p + header, size))
            p += header + size
        found.append((at, end, messages))
    return found


def write_intact(path, kind):
    rng = np.random.default_rng(20240)
    with h5py.File(path, "w", libver="latest", track_order=False) as f:
        step = f.create_group("step_00000", track_order=False)
        if kind == "btree":
            for i in range(40):  # beyond 8 links: dense storage, a fractal heap and a v2 B-tree
                step.create_dataset(f"t{i:03d}", data=rng.normal(0, 0.01, 16).astype(np.float32),
                                    track_times=False)
            return
        if kind == "global-heap":
            step.attrs["note"] = "learning rate warm-up"  # a vlen string: in the global heap
        for name in ("bias", "weight"):
            step.create_dataset(name, data=rng.normal(0, 0.01, 32).astype(np.float32),
                                track_times=False)


def without_times(data):
    """The groups' object headers carry creation times (h5py offers no switch for groups):
    set them to a fixed time, and their checksums to match."""
    data = bytearray(data)
    for at, end, _ in object_headers(data):
        if data[at + 5] & 0x20:
            data[at + 6:at + 22] = struct.pack("<4I", *[1700000000] * 4)
            struct.pack_into("<I", data, end, lookup3(bytes(data[at:end])))
    return bytes(data)


def damage(data, kind):
    data = bytearray(data)
    if kind == "btree":
        at = only(data, b"BTHD")
        # Header: signature, version, type, node size (4), record size (2) at +10, ...,
        # checksum at +34 over the 34 bytes before it.
        struct.pack_into("<H", data, at + 10, 255)
        struct.pack_into("<I", data, at + 34, lookup3(bytes(data[at:at + 34])))
    elif kind == "global-heap":
        at = only(data, b"GCOL")
        # Collection header (16 bytes), then object 1: index (2), references (2), reserved (4),
        # size (8) at +24. A global heap has no checksum.
        struct.pack_into("<Q", data, at + 24, 0xFFFF)
    elif kind == "link":
        # The group's header holds its two link messages (type 6): version, flags, ...
        headers = [(at, end, [m for m in msgs if m[0] == 6]) for at, end, msgs in
                   object_headers(data)]
        at, end, links = next((h for h in headers if len(h[2]) == 2))
        _, offset, _ = links[0]
        data[offset + 1] = 0x02  # name length in 4 bytes instead of 1
        struct.pack_into("<I", data, end, lookup3(bytes(data[at:end])))
    return bytes(data)


READER = """
import sys, h5py
def attrs(obj):
    for name in obj.attrs:
        obj.attrs[name]
def visit(group):
    attrs(group)
    for name in group:
        item = group[name]
        if isinstance(item, h5py.Group):
            visit(item)
        else:
            attrs(item)
            item[()]
with h5py.File(sys.argv[1], "r") as f:
    visit(f)
"""


def read_status(path):
    return subprocess.run([sys.executable, "-c", READER, path], capture_output=True).returncode


def main():
    args = [a for a in sys.argv[1:] if a != "--verify"]
    if len(args) != 1:
        raise SystemExit(__doc__)
    out = args[0]
    os.makedirs(out, exist_ok=True)
    failures = 0
    for kind in ("btree", "global-heap", "link"):
        intact = os.path.join(out, f"damaged-{kind}-intact.h5")
        damaged = os.path.join(out, f"damaged-{kind}.h5")
        write_intact(intact, kind)
        with open(intact, "rb") as f:
            data = without_times(f.read())
        with open(intact, "wb") as f:
            f.write(data)
        with open(damaged, "wb") as f:
            f.write(damage(data, kind))
        if "--verify" in sys.argv:
            good, bad = read_status(intact), read_status(damaged)
            crashed = bad in (-signal.SIGSEGV, -signal.SIGBUS)
            print(f"{kind}: intact exits {good}, damaged exits {bad}"
                  f" ({'crash' if crashed else 'NO CRASH'})")
            failures += good != 0 or not crashed
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
