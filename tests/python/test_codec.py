"""Round trips, exact top-k, the residual identity and the dtypes the Python API accepts."""
import numpy as np
import pytest
import torch

import gradcodec
from conftest import SPECS, gradient_like


def test_every_codec_of_the_library_is_listed():
    names = {entry["name"] for entry in gradcodec.list_codecs()}
    assert {"lossless", "cast", "rangeq", "topk", "threshold", "dgc", "sidco", "fft", "dct"} <= names


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_a_frame_decodes_to_the_shape_and_dtype_it_was_made_from(spec, dtype, rng):
    x = gradient_like(rng, (12, 40), dtype)
    codec = gradcodec.Codec(spec)
    frame = codec.encode(x)
    assert isinstance(frame, bytes)
    back = gradcodec.decode(frame)
    assert back.shape == x.shape and back.dtype == x.dtype
    info = gradcodec.frame_info(frame)
    assert info["shape"] == (12, 40) and info["element_count"] == x.size
    assert info["frame_size"] == len(frame) and info["codec_id"] == codec.id
    out = np.full_like(x, 7)
    assert gradcodec.decode(frame, out=out) is out
    np.testing.assert_array_equal(out, back)
    assert codec.encode(x) == frame, "encoding is deterministic"
    x64 = x.astype(np.float64)
    error = np.linalg.norm(back.astype(np.float64) - x64) / np.linalg.norm(x64)
    assert error < error_bound(spec, x64)
    if spec == "lossless":
        np.testing.assert_array_equal(back, x)


def error_bound(spec, x):
    """The relative L2 error a codec stays under: below 1, except for the unbiased quantisers
    with few levels, whose variance the papers bound above ‖x‖² (a margin of 1.5 over the
    square root of the expected squared error, since one draw may exceed its expectation)."""
    if spec.startswith("qsgd"):
        levels, n = 4, x.size  # one bucket: the tensor is smaller than the default 512
        return 1.5 * np.sqrt(min(n / levels**2, np.sqrt(n) / levels))
    if spec.startswith("terngrad"):
        # Bernoulli(|x|/s)·s per value: E‖error‖² = Σ|x|(s - |x|) <= s·‖x‖₁.
        return 1.5 * np.sqrt(np.abs(x).max() * np.abs(x).sum() / (x**2).sum())
    return 1.0


def test_cast_rounds_like_numpy(rng):
    x = gradient_like(rng, 1000)
    back = gradcodec.decode(gradcodec.Codec("cast:to=f16").encode(x))
    np.testing.assert_array_equal(back, x.astype(np.float16).astype(np.float32))


@pytest.mark.parametrize("k", [1, 10, 250])
def test_topk_keeps_exactly_the_k_largest_magnitudes(k, rng):
    x = rng.standard_normal(5000).astype(np.float32)
    back = gradcodec.decode(gradcodec.Codec(f"topk:count={k},values=f32").encode(x))
    expected = np.sort(np.argpartition(-np.abs(x), k - 1)[:k])
    np.testing.assert_array_equal(np.flatnonzero(back), expected)
    np.testing.assert_array_equal(back[expected], x[expected])


@pytest.mark.parametrize("spec", ["topk:density=0.01,values=f32", "threshold:value=1,values=f32",
                                  "dgc:density=0.01,values=f32", "sidco:dist=gpareto,density=0.01,values=f32"])
def test_sparse_residual_is_exactly_what_was_left_out(spec, rng):
    x = gradient_like(rng, 20000)
    residual = np.empty_like(x)
    frame = gradcodec.Codec(spec).encode(x, residual=residual)
    back = gradcodec.decode(frame)
    np.testing.assert_array_equal(back + residual, x)
    kept = back != 0
    assert np.all(residual[kept] == 0) and np.array_equal(residual[~kept], x[~kept])


@pytest.mark.parametrize("spec", SPECS)
def test_residual_plus_decoded_gives_the_input_within_float32_rounding(spec, rng):
    # residual = fl(x - d), so d + residual differs from x by at most a rounding of |x| + |d|.
    x = gradient_like(rng, 4096)
    residual = np.empty_like(x)
    frame = gradcodec.Codec(spec).encode(x, residual=residual)
    back = gradcodec.decode(frame)
    bound = 2 * np.finfo(np.float32).eps * (np.abs(x) + np.abs(back))
    assert np.all(np.abs(back + residual - x) <= bound)


@pytest.mark.parametrize("spec", SPECS)
def test_decoded_is_bit_for_bit_what_a_receiver_decodes(spec, rng):
    x = gradient_like(rng, 4096)
    residual, decoded = np.empty_like(x), np.full_like(x, np.nan)
    frame = gradcodec.Codec(spec).encode(x, residual=residual, decoded=decoded)
    back = gradcodec.decode(frame)
    assert decoded.tobytes() == back.tobytes()
    np.testing.assert_array_equal(residual, x - back)
    alone = np.full_like(x, np.nan)
    assert gradcodec.Codec(spec).encode(x, decoded=alone) == frame
    assert alone.tobytes() == back.tobytes()


def test_decoded_sharing_memory_with_the_input_or_residual_is_refused(rng):
    x = gradient_like(rng, 1000)
    codec = gradcodec.Codec("topk:density=0.1")
    with pytest.raises(gradcodec.UsageError, match="decoded must not share memory"):
        codec.encode(x, decoded=x)
    both = np.empty(2000, dtype=np.float32)
    with pytest.raises(gradcodec.UsageError, match="must not share memory"):
        codec.encode(x, residual=both[:1000], decoded=both[500:1500])
    with pytest.raises(gradcodec.UsageError, match="decoded holds 999 values"):
        codec.encode(x, decoded=np.empty(999, dtype=np.float32))


def test_encode_into_writes_the_same_frame_into_a_caller_buffer(rng):
    x = gradient_like(rng, 3000)
    codec = gradcodec.Codec("topk:density=0.01")
    out = np.zeros(codec.max_frame_size(x.size), dtype=np.uint8)
    size = codec.encode_into(x, out)
    assert bytes(out[:size]) == codec.encode(x)
    with pytest.raises(gradcodec.LimitError):
        codec.encode_into(x, np.zeros(10, dtype=np.uint8))


def test_torch_tensors_are_encoded_in_place_in_every_float_dtype(rng):
    x = torch.from_numpy(gradient_like(rng, (8, 64)))
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        t = x.to(dtype)
        frame = gradcodec.Codec("lossless").encode(t)
        out = torch.empty_like(t)
        gradcodec.decode(frame, out=out)
        assert torch.equal(out, t)
        assert gradcodec.frame_info(frame)["dtype"] == {torch.float32: "f32", torch.float64: "f64",
                                                      torch.float16: "f16", torch.bfloat16: "bf16"}[dtype]


def test_bf16_travels_as_uint16_bits_for_numpy(rng):
    t = torch.from_numpy(gradient_like(rng, 500)).to(torch.bfloat16)
    bits = t.view(torch.int16).numpy().view(np.uint16)
    frame = gradcodec.Codec("cast:to=bf16").encode(bits, dtype="bf16")
    assert gradcodec.Codec("cast:to=bf16").encode(t) == frame
    np.testing.assert_array_equal(gradcodec.decode(frame), bits)
    with pytest.raises(gradcodec.UsageError, match="bf16"):
        gradcodec.Codec("lossless").encode(bits)


def test_torch_residual_buffers_receive_what_was_left_out(rng):
    x = torch.from_numpy(gradient_like(rng, 2000))
    residual = torch.empty_like(x)
    frame = gradcodec.Codec("topk:density=0.02,values=f32").encode(x, residual=residual)
    back = torch.from_numpy(gradcodec.decode(frame))
    assert torch.equal(back + residual, x)
