"""Conformance of the 1.2 codec pages: the independent spec_decoder.py against gradcodec.

For every golden stream whose CHECKSUMS spec names randomk, qsgd, terngrad, sign, onebit,
natural or lowrank, the spec decoder's bytes must equal `gradcodec decode STREAM --raw -o -`
bit for bit. The worked examples' payload bytes in the five codec pages are checked against the
encoder (same spec, same input) and decoded by both. A few more streams, encoded here from the
golden tensor in f16, bf16 and f64, cover the dtype storage rules, the symbol codings and the
lowrank fallback.

The CLI comes from $GRADCODEC_CLI, default build/cli/gradcodec under the repository root.
"""

import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import spec_decoder  # noqa: E402

CLI = pathlib.Path(os.environ.get("GRADCODEC_CLI", ROOT / "build" / "cli" / "gradcodec"))
GOLDEN = ROOT / "samples" / "golden"
SPEC = ROOT / "format-spec"
CODECS = ("randomk", "qsgd", "terngrad", "sign", "onebit", "natural", "lowrank")

pytestmark = pytest.mark.skipif(not CLI.exists(), reason=f"no gradcodec CLI at {CLI}")


def golden_streams():
    out = []
    for line in (GOLDEN / "CHECKSUMS").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split(None, 2)
        if len(fields) == 3 and fields[2].split(":")[0].split(",")[0] in CODECS:
            out.append(fields[1])
    return out


def cli_decode(stream):
    done = subprocess.run([str(CLI), "decode", str(stream), "--raw", "-o", "-", "-q"],
                          capture_output=True, check=True)
    return done.stdout


def cli_encode(raw, dtype, shape, spec, out):
    subprocess.run([str(CLI), "encode", str(raw), "--raw", dtype, "--shape", shape,
                    "--codec", spec, "-o", str(out), "-f", "-q"], check=True, capture_output=True)
    return out


def spec_decode(stream):
    tensors = spec_decoder.read_stream(pathlib.Path(stream).read_bytes())
    assert len(tensors) == 1
    return tensors[0]


def first_difference(a, b, size):
    x = np.frombuffer(a, dtype=f"u{size}")
    y = np.frombuffer(b, dtype=f"u{size}")
    at = np.nonzero(x != y)[0]
    return f"{len(at)} elements differ, first at {at[0]}: {x[at[0]]:#x} vs {y[at[0]]:#x}"


def assert_same(stream):
    t = spec_decode(stream)
    assert t["skipped"] is None, t["skipped"]
    ours, theirs = t["decoded"], cli_decode(stream)
    size = spec_decoder.DTYPE_SIZE[t["dtype"]]
    assert len(ours) == len(theirs)
    assert ours == theirs, first_difference(ours, theirs, size)
    return t


def test_golden_list_is_not_empty():
    assert len(golden_streams()) >= 11


@pytest.mark.parametrize("name", golden_streams())
def test_golden_stream(name):
    assert_same(GOLDEN / name)


# --- Worked examples of the pages ------------------------------------------------------------

X16 = [0.5, -1.25, 0.75, 2.0, -0.125, 0.0, 3.5, -0.5, 1.0, 0.25, -2.0, 0.0625, -0.75, 1.5,
       0.375, -3.0]
X10 = [0.5, -1.0, 0.75, -0.75, 1.0, 0.625, -0.875, 0.25, -0.5, 0.875]
HEX = re.compile(r"^[0-9a-f]{2}$")


def fenced_payloads(page):
    """The hex bytes of each fenced block whose lines start with bytes; None for a block
    that elides bytes with '...'."""
    out = []
    for block in re.findall(r"```\n(.*?)```", (SPEC / page).read_text(), re.S):
        data, elided, any_hex = [], False, False
        for line in block.splitlines():
            for tok in line.split():
                if tok == "...":
                    elided = True
                    continue
                if not HEX.match(tok):
                    break
                data.append(int(tok, 16))
                any_hex = True
        if any_hex and re.match(r"\s*[0-9a-f]{2}\s", block):
            out.append(None if elided else bytes(data))
    return out


def inline_payloads(page):
    out = []
    for span in re.findall(r"`([0-9a-f |]+)`", (SPEC / page).read_text()):
        toks = [t for t in span.split() if t != "|"]
        if len(toks) >= 8 and all(HEX.match(t) for t in toks):
            out.append(bytes(int(t, 16) for t in toks))
    return out


# (page, "fenced" or "inline", index, spec, shape, input)
EXAMPLES = [
    ("codec-randomk.md", "fenced", 0, "randomk:density=0.25,seed=1,scale=unbiased", "16", X16),
    ("codec-randomk.md", "inline", 0, "randomk:density=0.25,seed=42", "16", X16),
    ("codec-sign.md", "fenced", 0, "sign:bucket=8", "16", X16),
    ("codec-sign.md", "inline", 0, "sign:scale=none", "16", X16),
    ("codec-sign.md", "fenced", 1, "onebit:bucket=8", "16", X16),
    ("codec-qsgd.md", "fenced", 0, "qsgd:levels=4,bucket=8,seed=7", "16", X16),
    ("codec-qsgd.md", "fenced", 1, "terngrad:seed=7", "10", X10),
    ("codec-natural.md", "fenced", 0, "natural:seed=5", "16", X16),
    ("codec-lowrank.md", "fenced", 0, "lowrank:rank=1,iters=2,seed=3,values=f32", "4x4", X16),
    ("codec-lowrank.md", "inline", 0, "lowrank:rank=1,iters=2,seed=3", "4x4", X16),
    ("codec-lowrank.md", "inline", 1, "lowrank:rank=1", "2x2", [1.0, 2.0, 3.0, 4.0]),
]


@pytest.mark.parametrize("page,where,index,spec,shape,values", EXAMPLES,
                         ids=[f"{e[0]}:{e[3]}" for e in EXAMPLES])
def test_worked_example(tmp_path, page, where, index, spec, shape, values):
    blocks = fenced_payloads(page) if where == "fenced" else inline_payloads(page)
    expected = blocks[index]
    assert expected is not None
    raw = tmp_path / "x.f32"
    np.array(values, dtype="<f4").tofile(raw)
    stream = cli_encode(raw, "f32", shape, spec, tmp_path / "x.gcs")
    t = assert_same(stream)
    assert t["payload"] == expected, (
        f"{page}: the page's payload differs from the encoder's:\n page    {expected.hex(' ')}"
        f"\n encoder {t['payload'].hex(' ')}")
    dims = tuple(int(d) for d in shape.split("x"))
    ours = spec_decoder.decode_payload(t["codec_id"], "f32", dims, expected)
    assert ours == t["decoded"]


def test_lowrank_fallback_example_prefix(tmp_path):
    """The elided fallback block: form 1, lossless, mode 0, then the 64 value bytes."""
    raw = tmp_path / "x.f32"
    np.array(X16, dtype="<f4").tofile(raw)
    t = assert_same(cli_encode(raw, "f32", "16", "lowrank:rank=1,seed=3", tmp_path / "x.gcs"))
    assert t["payload"] == bytes([1, 1, 0, 0]) + np.array(X16, dtype="<f4").tobytes()
    assert t["decoded"] == np.array(X16, dtype="<f4").tobytes()


# --- More streams from the golden tensor -----------------------------------------------------

MORE_SPECS = [
    "randomk:density=0.3,seed=6,values=bf16",
    "randomk:density=0.02,seed=7,scale=unbiased,values=f32",
    "qsgd:levels=16,seed=1",
    "qsgd:levels=1,bucket=0,seed=2",
    "qsgd:levels=1048576,bucket=4096,seed=8",
    "terngrad:bucket=64,seed=3",
    "sign:bucket=100",
    "sign:scale=none,bucket=1",
    "onebit",
    "natural:seed=4",
    "lowrank:rank=8,seed=5,values=bf16",
    "lowrank:rank=3,iters=1,seed=9,values=f32",
]


def golden_tensor(dtype):
    x = np.fromfile(GOLDEN / "c2.weight.f32", dtype="<f4")
    if dtype == "f32":
        return x.tobytes()
    if dtype == "f64":
        return x.astype("<f8").tobytes()
    if dtype == "f16":
        return x.astype("<f2").tobytes()
    bits = x.view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u2").tobytes()


@pytest.mark.parametrize("dtype", ["f16", "bf16", "f64"])
@pytest.mark.parametrize("spec", MORE_SPECS)
def test_more_streams(tmp_path, dtype, spec):
    raw = tmp_path / f"x.{dtype}"
    raw.write_bytes(golden_tensor(dtype))
    assert_same(cli_encode(raw, dtype, "64x32x3x3", spec, tmp_path / "x.gcs"))


@pytest.mark.parametrize("shape", ["18432", "64x288", "1x18432"])
def test_lowrank_shapes(tmp_path, shape):
    raw = tmp_path / "x.f32"
    raw.write_bytes(golden_tensor("f32"))
    assert_same(cli_encode(raw, "f32", shape, "lowrank:rank=1,seed=1", tmp_path / "x.gcs"))


def test_rangeq_values_are_reported_skipped(tmp_path):
    raw = tmp_path / "x.f32"
    raw.write_bytes(golden_tensor("f32"))
    t = spec_decode(cli_encode(raw, "f32", "64x32x3x3", "randomk:density=0.1,seed=1,values=rangeq",
                               tmp_path / "x.gcs"))
    assert t["skipped"] and "range-float" in t["skipped"]


def test_refusals():
    D = spec_decoder.Damaged
    dec = spec_decoder.decode_payload
    with pytest.raises(D):  # randomk: k > n
        dec(7, "f32", (4,), bytes(8) + (5).to_bytes(8, "little") + b"\x00\x01" + bytes(20))
    with pytest.raises(D):  # sign: B = 0
        dec(9, "f32", (8,), b"\x00" + bytes(8) + b"\x00")
    with pytest.raises(D):  # sign: padding bit
        dec(9, "f32", (4,), b"\x00" + (4).to_bytes(8, "little") + b"\x10")
    with pytest.raises(D):  # natural: w above 9
        dec(10, "f32", (1,), bytes(8) + b"\x00\x00\x0a" + bytes(2))
    with pytest.raises(D):  # natural: 2^16 in an f16 tensor
        dec(10, "f16", (1,), bytes(8) + (17).to_bytes(2, "little") + b"\x01\x02")
    with pytest.raises(D):  # lowrank: nested lowrank
        dec(11, "f32", (4,), b"\x01\x0b\x00")
    with pytest.raises(D):  # lowrank: factors that do not pay
        dec(11, "f32", (2, 2), b"\x00\x01\x00\x00\x00" + bytes(9) + b"\x01" + bytes(8) * 2)
    with pytest.raises(D):  # codecs 7-11 are float-only
        dec(9, "i32", (4,), b"\x00" + (4).to_bytes(8, "little") + b"\x00")
