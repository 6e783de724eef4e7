import os
import pathlib

import numpy as np
import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("GRADCODEC_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))

# One spec per codec (and per selector of the shared sparse codec), as a user writes them.
SPECS = [
    "lossless",
    "cast:to=f16",
    "cast:to=bf16",
    "rangeq:bits=8",
    "topk:density=0.05",
    "topk:count=7,values=f32",
    "threshold:value=1.5",
    "dgc:density=0.05",
    "sidco:dist=exp,density=0.05",
    "sidco:dist=gpareto,density=0.05",
    "sidco:dist=gamma,density=0.05",
    "fft:density=0.25",
    "dct:density=0.25",
    # The stochastic codecs with a seed: encoding is then a pure function of the values.
    "randomk:density=0.05,seed=1",
    "qsgd:levels=4,seed=2",
    "terngrad:seed=3",
    "sign",
    "onebit",
    "natural:seed=4",
    "lowrank:rank=2,seed=5",
]


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def gradient_like(rng, shape, dtype=np.float32):
    """Heavy-tailed values like a gradient's: mostly small, a few large."""
    values = rng.standard_normal(shape) * rng.exponential(1.0, shape)
    return values.astype(dtype)
