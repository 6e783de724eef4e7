"""Torch in gives torch out, NumPy in gives NumPy out: decode, frame_info and the position
sections, given torch tensors, answer with CPU torch tensors of the frame's dtype."""
import numpy as np
import pytest

import gradcodec
from conftest import gradient_like

torch = pytest.importorskip("torch")

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def frame_tensor(frame):
    return torch.frombuffer(bytearray(frame), dtype=torch.uint8)


def numpy_of(tensor):
    """A tensor's values as NumPy; bf16 as the uint16 bits that NumPy decode gives."""
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(np.uint16)
    return tensor.numpy()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("spec", ["lossless", "topk:density=0.1", "rangeq:bits=8"])
def test_a_frame_in_a_torch_tensor_decodes_to_a_cpu_tensor_of_the_frames_dtype(spec, dtype, rng):
    values = torch.from_numpy(gradient_like(rng, (12, 50))).to(dtype)
    frame = gradcodec.Codec(spec).encode(values)
    assert isinstance(frame, bytes)  # a frame is bytes, whatever the array
    decoded = gradcodec.decode(frame_tensor(frame))
    assert isinstance(decoded, torch.Tensor)
    assert decoded.dtype == dtype and decoded.device.type == "cpu" and tuple(decoded.shape) == (12, 50)
    # The same values as NumPy decode gives for the bytes.
    from_bytes = gradcodec.decode(frame)
    assert isinstance(from_bytes, np.ndarray)
    np.testing.assert_array_equal(numpy_of(decoded), from_bytes)
    if spec == "lossless":
        assert torch.equal(decoded, values)


def test_numpy_in_stays_numpy_out(rng):
    values = gradient_like(rng, 300)
    frame = gradcodec.Codec("lossless").encode(values)
    for given in (frame, np.frombuffer(frame, dtype=np.uint8), bytearray(frame), memoryview(frame)):
        decoded = gradcodec.decode(given)
        assert isinstance(decoded, np.ndarray) and decoded.dtype == np.float32
        np.testing.assert_array_equal(decoded, values)


@pytest.mark.parametrize("dtype", DTYPES)
def test_decoding_into_a_torch_out_returns_that_tensor(dtype, rng):
    values = torch.from_numpy(gradient_like(rng, 200)).to(dtype)
    frame = gradcodec.Codec("lossless").encode(values)
    out = torch.empty(200, dtype=dtype)
    assert gradcodec.decode(frame_tensor(frame), out=out) is out
    assert torch.equal(out, values)


def test_frame_info_reads_a_frame_in_a_torch_tensor():
    frame = gradcodec.Codec("topk:density=0.5").encode(torch.ones(4, 6, dtype=torch.bfloat16))
    info = gradcodec.frame_info(frame_tensor(frame))
    assert info == gradcodec.frame_info(frame)
    assert info["dtype"] == "bf16" and info["shape"] == (4, 6) and info["frame_size"] == len(frame)


def test_position_sections_take_and_give_torch_tensors():
    n = 10_000
    positions = gradcodec.random_positions(n, 300, seed=7)
    section = gradcodec.encode_positions(positions, n)
    assert gradcodec.encode_positions(torch.from_numpy(positions.astype(np.int64)), n) == section
    from_tensor = gradcodec.decode_positions(frame_tensor(section), n)
    assert isinstance(from_tensor, torch.Tensor) and from_tensor.dtype == torch.int64
    np.testing.assert_array_equal(from_tensor.numpy(), positions.astype(np.int64))
    from_bytes = gradcodec.decode_positions(section, n)
    assert isinstance(from_bytes, np.ndarray) and from_bytes.dtype == np.uint64
    np.testing.assert_array_equal(from_bytes, positions)


def test_a_frame_on_another_device_or_not_contiguous_is_refused_clearly():
    frame = frame_tensor(gradcodec.Codec("lossless").encode(np.ones(8, np.float32)))
    spread = torch.zeros(2 * frame.numel(), dtype=torch.uint8)[::2]
    spread.copy_(frame)
    with pytest.raises(gradcodec.UsageError, match="contiguous"):
        gradcodec.decode(spread)
    if hasattr(torch.device, "type") and torch.cuda.is_available():
        with pytest.raises(gradcodec.UsageError, match="move it to the CPU"):
            gradcodec.decode(frame.cuda())
