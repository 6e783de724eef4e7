"""Buffers the codec must not misread: an output that shares memory with the array, the
residual or the decoded buffer is refused (it would seal a frame that does not decode to the
array), and an array is read only as the dtype it really holds."""
import numpy as np
import pytest

import gradcodec
from conftest import SPECS, gradient_like


@pytest.mark.parametrize("spec", ["lossless", "topk:density=0.1", "rangeq:bits=8"])
def test_an_output_that_overlaps_the_array_is_refused(rng, spec):
    codec = gradcodec.Codec(spec)
    n = 500
    bound = codec.max_frame_size(n)
    arena = np.zeros(4 * n + bound, np.uint8)
    x = arena[:4 * n].view(np.float32)
    x[:] = gradient_like(rng, n)
    original = x.copy()
    for start in (0, 100, 4 * n - 1):
        with pytest.raises(gradcodec.UsageError, match="share memory"):
            codec.encode_into(x, arena[start:start + bound])
        np.testing.assert_array_equal(x, original)
    # Right after the array is fine, and the frame decodes as encode() would.
    size = codec.encode_into(x, arena[4 * n:])
    assert bytes(arena[4 * n:4 * n + size]) == codec.encode(original)


def test_an_output_that_overlaps_a_feedback_buffer_is_refused(rng):
    codec = gradcodec.Codec("topk:density=0.1")
    x = gradient_like(rng, 256)
    out = np.zeros(max(codec.max_frame_size(x.size), x.nbytes), np.uint8)
    shared = out[:x.nbytes].view(np.float32)
    with pytest.raises(gradcodec.UsageError, match="share memory"):
        codec.encode_into(x, out, residual=shared)
    with pytest.raises(gradcodec.UsageError, match="share memory"):
        codec.encode_into(x, out, decoded=shared)


@pytest.mark.parametrize("dtype,wrong", [
    ("f64", np.complex64),
    ("f64", np.int64),
    ("f64", np.dtype([("a", "<f4"), ("b", "<f4")])),
    ("f32", np.int32),
    ("f32", np.dtype([("a", "<u2"), ("b", "<u2")])),
    ("f16", np.dtype([("a", "u1"), ("b", "u1")])),
    ("bf16", np.dtype("S2")),
])
def test_a_named_dtype_must_be_what_the_array_holds(dtype, wrong):
    array = np.zeros(8, dtype=wrong)
    codec = gradcodec.Codec("lossless")
    with pytest.raises(gradcodec.UsageError, match=dtype):
        codec.encode(array, dtype=dtype)
    if dtype in ("f32", "f64"):
        frame = codec.encode(np.zeros(8, np.float32 if dtype == "f32" else np.float64))
        with pytest.raises(gradcodec.UsageError, match=dtype):
            gradcodec.decode(frame, out=array, dtype=dtype)


@pytest.mark.parametrize("spec", SPECS)
def test_the_dtypes_a_name_may_stand_for_still_work(rng, spec):
    codec = gradcodec.Codec(spec)
    x = gradient_like(rng, 64)
    bf16_bits = (x.view(np.uint32) >> 16).astype(np.uint16)
    for array, dtype in ((x, "f32"), (x.astype(np.float64), "f64"), (x.astype(np.float16), "f16"),
                         (x.astype(np.float16).view(np.uint16), "f16"), (bf16_bits, "bf16"),
                         (bf16_bits.view(np.int16), "bf16")):
        frame = codec.encode(array, dtype=dtype)
        assert gradcodec.frame_info(frame)["dtype"] == dtype
