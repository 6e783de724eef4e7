"""One Codec shared by many threads gives each thread the frames it would get alone."""
import concurrent.futures

import numpy as np
import pytest

import gradcodec
from conftest import gradient_like


@pytest.mark.parametrize("spec", ["topk:density=0.01", "sidco:dist=gpareto,density=0.01", "fft:density=0.1",
                                  "rangeq:bits=8", "lossless"])
def test_concurrent_encodes_and_decodes_match_the_serial_results(spec, rng):
    codec = gradcodec.Codec(spec)
    inputs = [gradient_like(rng, 20000 + 17 * i) for i in range(8)]
    expected = [(codec.encode(x), gradcodec.decode(codec.encode(x))) for x in inputs]

    def work(i):
        for _ in range(20):
            residual = np.empty_like(inputs[i])
            frame = codec.encode(inputs[i], residual=residual)
            back = gradcodec.decode(frame)
            if frame != expected[i][0] or not np.array_equal(back, expected[i][1]):
                return False
        return True

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        assert all(pool.map(work, range(8)))
