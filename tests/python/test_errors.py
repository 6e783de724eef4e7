"""Bad specs, bad arguments and damaged frames raise gradcodec errors; none of them crashes."""
import numpy as np
import pytest

import gradcodec
from conftest import gradient_like


@pytest.mark.parametrize("spec", ["nosuch", "topk:density=2", "topk:colour=red", "rangeq:bits=40", ""])
def test_a_bad_spec_is_a_usage_error_and_a_value_error(spec):
    with pytest.raises(gradcodec.UsageError) as raised:
        gradcodec.Codec(spec)
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, gradcodec.Error)


def test_nan_is_bad_input_for_a_lossy_codec_and_exact_for_lossless(rng):
    x = gradient_like(rng, 100)
    x[17] = np.nan
    with pytest.raises(gradcodec.BadInputError, match="17"):
        gradcodec.Codec("rangeq:bits=8").encode(x)
    back = gradcodec.decode(gradcodec.Codec("lossless").encode(x))
    np.testing.assert_array_equal(back, x)


def test_every_flipped_byte_and_every_truncation_is_a_damaged_frame(rng):
    frame = gradcodec.Codec("topk:density=0.05").encode(gradient_like(rng, 300))
    for at in range(len(frame)):
        damaged = bytearray(frame)
        damaged[at] ^= 0x5A
        with pytest.raises(gradcodec.DamagedStreamError):
            gradcodec.decode(damaged)
    for size in range(len(frame)):
        with pytest.raises(gradcodec.DamagedStreamError):
            gradcodec.decode(frame[:size])


def test_random_bytes_are_refused(rng):
    for size in (0, 1, 19, 20, 28, 64, 4096):
        with pytest.raises(gradcodec.DamagedStreamError):
            gradcodec.frame_info(rng.integers(0, 256, size, dtype=np.uint8))


def test_a_decode_target_of_the_wrong_type_or_size_is_refused(rng):
    frame = gradcodec.Codec("lossless").encode(gradient_like(rng, 64))
    with pytest.raises(gradcodec.UsageError, match="f64"):
        gradcodec.decode(frame, out=np.empty(64, dtype=np.float64))
    with pytest.raises(gradcodec.UsageError, match="65"):
        gradcodec.decode(frame, out=np.empty(65, dtype=np.float32))
    read_only = np.empty(64, dtype=np.float32)
    read_only.setflags(write=False)
    with pytest.raises(gradcodec.UsageError, match="writable"):
        gradcodec.decode(frame, out=read_only)


def test_arrays_the_codec_cannot_read_in_place_are_refused(rng):
    codec = gradcodec.Codec("lossless")
    with pytest.raises(gradcodec.UsageError, match="contiguous"):
        codec.encode(gradient_like(rng, (10, 10))[:, ::2])
    with pytest.raises(gradcodec.UsageError, match="float"):
        codec.encode(np.arange(10, dtype=np.int32))
    with pytest.raises(gradcodec.UsageError, match="big-endian"):
        codec.encode(np.ones(4, dtype=">f4"))
    x = gradient_like(rng, 100)
    with pytest.raises(gradcodec.UsageError, match="share memory"):
        codec.encode(x, residual=x)
    with pytest.raises(gradcodec.UsageError, match="values"):
        codec.encode(x, residual=np.empty(99, dtype=np.float32))
