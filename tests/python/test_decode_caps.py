"""Decoding is capped as `gradcodec decode` is: a frame or stream whose header declares more
decoded bytes than max_tensor_bytes (or, summed over a stream, max_total_bytes) raises LimitError
before anything is allocated. The defaults are the CLI's, from the library."""
import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gradcodec

FRAME_TOOL = os.environ.get("GRADCODEC_FRAME_TOOL")
needs_frame_tool = pytest.mark.skipif(
    not FRAME_TOOL, reason="GRADCODEC_FRAME_TOOL (tests/tools/frame_tool) is set by ctest")

# 2^31 f32 values (8 GiB) declared by a frame of about 90 bytes: over every default cap.
HUGE = 1 << 31


def bomb_frame(tmp_path):
    """A sealed frame of a topk payload whose header declares HUGE f32 values: the header passes
    every check (checksum included) and only its size is hostile."""
    frame = bytearray(gradcodec.Codec("topk:density=0.001").encode(np.zeros(1000, np.float32)))
    assert frame[10] == 1  # rank 1: the element count at bytes 12..19 is the whole shape
    frame[12:20] = struct.pack("<Q", HUGE)
    path = tmp_path / "bomb.gcf"
    path.write_bytes(frame)
    subprocess.run([FRAME_TOOL, "reseal", str(path)], check=True)
    return path


def run_capped(code, address_space=3 << 30):
    """Runs `code` in a Python whose address space is capped, so an allocation the caps should
    have prevented fails there instead of taking this machine's memory."""
    prelude = textwrap.dedent(f"""
        import resource, sys, time
        resource.setrlimit(resource.RLIMIT_AS, ({address_space}, {address_space}))
        import gradcodec
    """)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=120, env=env)


def test_the_defaults_are_the_clis():
    assert gradcodec.DEFAULT_MAX_TOTAL_BYTES == 16 << 30
    assert 0 < gradcodec.default_max_tensor_bytes() <= 4 << 30


@needs_frame_tool
def test_a_tiny_frame_declaring_8_gib_is_refused_before_allocating(tmp_path):
    frame = bomb_frame(tmp_path)
    assert frame.stat().st_size < 100
    assert gradcodec.frame_info(frame.read_bytes())["element_count"] == HUGE
    result = run_capped(f"""
        frame = open({str(frame)!r}, "rb").read()
        started = time.monotonic()
        try:
            gradcodec.decode(frame)
        except gradcodec.LimitError as e:
            print("LimitError", time.monotonic() - started, e)
        else:
            print("decoded")
    """)
    assert result.stdout.startswith("LimitError"), result.stdout + result.stderr
    seconds = float(result.stdout.split()[1])
    assert seconds < 1.0
    assert "max_tensor_bytes" in result.stdout


@needs_frame_tool
def test_a_tiny_stream_declaring_8_gib_is_refused_before_allocating(tmp_path):
    stream = tmp_path / "bomb.gcs"
    subprocess.run([FRAME_TOOL, "stream", str(bomb_frame(tmp_path)), str(stream)], check=True)
    assert stream.stat().st_size < 300
    result = run_capped(f"""
        started = time.monotonic()
        try:
            for _ in gradcodec.read_stream({str(stream)!r}, max_elements=1 << 40):
                pass
        except gradcodec.LimitError as e:
            print("LimitError", time.monotonic() - started, e)
        else:
            print("decoded")
    """)
    assert result.stdout.startswith("LimitError"), result.stdout + result.stderr
    assert float(result.stdout.split()[1]) < 1.0
    assert "max_tensor_bytes" in result.stdout


def test_decode_takes_the_caps_as_keywords():
    x = np.zeros(4096, np.float32)  # 16 KiB decoded from a frame of a few dozen bytes
    frame = gradcodec.Codec("topk:density=0.001").encode(x)
    with pytest.raises(gradcodec.LimitError, match="max_tensor_bytes"):
        gradcodec.decode(frame, max_tensor_bytes=x.nbytes - 1)
    with pytest.raises(gradcodec.LimitError, match="max_total_bytes"):
        gradcodec.decode(frame, max_total_bytes=x.nbytes - 1)
    np.testing.assert_array_equal(
        gradcodec.decode(frame, max_tensor_bytes=x.nbytes, max_total_bytes=x.nbytes), x)
    # The caller's own array is not capped: it is already allocated.
    out = np.empty_like(x)
    assert gradcodec.decode(frame, out, max_tensor_bytes=1) is out
    for bad in (0, -1):
        with pytest.raises(gradcodec.UsageError, match="max_tensor_bytes"):
            gradcodec.decode(frame, max_tensor_bytes=bad)
        with pytest.raises(gradcodec.UsageError, match="max_total_bytes"):
            gradcodec.decode(frame, max_total_bytes=bad)


def test_read_stream_caps_each_tensor_and_their_sum(tmp_path):
    path = tmp_path / "two.gcs"
    a = np.zeros(1000, np.float32)
    b = np.ones(3000, np.float32)
    with gradcodec.StreamWriter(path, codec="lossless") as writer:
        writer.write("a", a)
        writer.write("b", b)
    names = [name for name, _, _ in gradcodec.read_stream(path)]
    assert names == ["a", "b"]
    with pytest.raises(gradcodec.LimitError, match="max_tensor_bytes"):
        list(gradcodec.read_stream(path, max_tensor_bytes=b.nbytes - 1))
    reader = gradcodec.read_stream(path, max_total_bytes=a.nbytes + b.nbytes - 1)
    name, values, _ = next(reader)
    assert name == "a"
    np.testing.assert_array_equal(values, a)
    with pytest.raises(gradcodec.LimitError, match="max_total_bytes"):
        next(reader)
    assert len(list(gradcodec.read_stream(path, max_total_bytes=a.nbytes + b.nbytes))) == 2
    with pytest.raises(gradcodec.UsageError, match="max_total_bytes"):
        list(gradcodec.read_stream(path, max_total_bytes=0))
